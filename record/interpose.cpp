// The recorder that `mwcheck record` preloads into an unmodified libibverbs
// program (LD_PRELOAD). It appends one line per MW/MR verb to the log that
// MWCHECK_RECORD_LOG names (events.def); the mwcheck process turns the log
// into a trace once the program has ended.
//
// Most of these verbs are static inline in <infiniband/verbs.h> and jump
// through the context's ops table (ibv_alloc_mw, ibv_bind_mw, ibv_post_send,
// ibv_poll_cq, ibv_dealloc_mw), so interposing symbols alone would miss them:
// ibv_open_device is interposed and each context's ops are wrapped. The
// exported verbs (PD, MR, QP) are interposed by symbol.
//
// It runs inside someone else's program: no exceptions, no allocation, errno
// preserved, and a write(2) per line, so lines of threads never mix.
#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "record/events.def"

#undef ibv_reg_mr  // verbs.h makes these macros over the exported functions
#undef ibv_reg_mr_iova

namespace {

enum class Ev {
#define E(name, fields, summary) name,
  MWC_RECORD_EVENTS(E)
#undef E
};
constexpr const char* kName[] = {
#define E(name, fields, summary) #name,
    MWC_RECORD_EVENTS(E)
#undef E
};
constexpr const char* kFields[] = {
#define E(name, fields, summary) fields,
    MWC_RECORD_EVENTS(E)
#undef E
};

// Calls made from inside a recorded call (a provider calling a verb, one
// libibverbs entry point calling another) are the library's own.
thread_local int t_depth = 0;
struct Outer {
  bool is = t_depth++ == 0;
  ~Outer() { --t_depth; }
};

int log_fd() {
  static const int fd = [] {
    const char* path = std::getenv("MWCHECK_RECORD_LOG");
    if (!path) return -1;
    const int f = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (f >= 0) {
      char head[64];
      const int n = std::snprintf(head, sizeof head, "mwcheck-record %d\n", MWC_RECORD_VERSION);
      if (write(f, head, static_cast<size_t>(n)) != n) {
        close(f);
        return -1;
      }
    }
    return f;
  }();
  return fd;
}

// Writes one event line: the event's fields (events.def) with `values` in order.
void emit(Ev ev, std::initializer_list<uint64_t> values) {
  const int saved = errno;
  const int fd = log_fd();
  if (fd >= 0) {
    char line[640];
    size_t n = static_cast<size_t>(std::snprintf(line, sizeof line, "%s", kName[static_cast<int>(ev)]));
    const char* f = kFields[static_cast<int>(ev)];
    for (uint64_t v : values) {
      const char* end = std::strchr(f, ' ');
      const int len = end ? static_cast<int>(end - f) : static_cast<int>(std::strlen(f));
      n += static_cast<size_t>(std::snprintf(line + n, sizeof line - n, " %.*s=%llx", len, f,
                                             static_cast<unsigned long long>(v)));
      f = end ? end + 1 : f + len;
    }
    line[n++] = '\n';
    if (write(fd, line, n) < 0) { /* the program goes on unrecorded */ }
  }
  errno = saved;
}

uint64_t u(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// Returns the next definition of a libibverbs symbol (the version a program
// linked today asks for, else the default one).
template <class F>
F next(const char* name, const char* version) {
  void* p = dlvsym(RTLD_NEXT, name, version);
  if (!p) p = dlsym(RTLD_NEXT, name);
  if (!p) {
    static const char msg[] = "mwcheck record: libibverbs has no ";
    if (write(2, msg, sizeof msg - 1) < 0 || write(2, name, std::strlen(name)) < 0) {}
    std::abort();
  }
  return reinterpret_cast<F>(p);
}
#define NEXT(name, version)                                                        \
  static const auto real = next<decltype(&::name)>(#name, version)

// ---- the wrapped context ops ----------------------------------------------

// Each context's own ops, as the provider set them. Contexts are few and
// never forgotten (a closed context's slot is reused when its address is).
constexpr int kMaxContexts = 64;
struct Saved {
  ibv_context* ctx;
  ibv_context_ops ops;
};
Saved g_saved[kMaxContexts];
std::atomic<int> g_count{0};
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

const ibv_context_ops& orig(ibv_context* c) {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (g_saved[i].ctx == c) return g_saved[i].ops;
  static const char msg[] = "mwcheck record: a verb on a context it never saw opened\n";
  if (write(2, msg, sizeof msg - 1) < 0) {}
  std::abort();
}

ibv_mw* w_alloc_mw(ibv_pd* pd, ibv_mw_type type) {
  Outer o;
  ibv_mw* mw = orig(pd->context).alloc_mw(pd, type);
  if (o.is) emit(Ev::mw, {u(pd), uint64_t(type), u(mw), mw ? mw->rkey : 0u, mw ? 0u : uint64_t(errno)});
  return mw;
}

int w_dealloc_mw(ibv_mw* mw) {
  Outer o;
  const uint64_t id = u(mw);
  const int rc = orig(mw->context).dealloc_mw(mw);
  if (o.is) emit(Ev::mw_free, {id, uint64_t(rc)});
  return rc;
}

int w_bind_mw(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* b) {
  Outer o;
  const int rc = orig(qp->context).bind_mw(qp, mw, b);
  const ibv_mw_bind_info& i = b->bind_info;
  if (o.is)
    emit(Ev::bind, {u(qp), u(mw), b->wr_id, b->send_flags, u(i.mr), i.addr, i.length,
                    i.mw_access_flags, mw->rkey, uint64_t(rc)});
  return rc;
}

// The rkey and remote address a work request carries, by opcode.
void remote_of(const ibv_send_wr& w, uint64_t& raddr, uint64_t& rkey, uint64_t& inv) {
  raddr = rkey = inv = 0;
  switch (w.opcode) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_RDMA_READ:
      raddr = w.wr.rdma.remote_addr, rkey = w.wr.rdma.rkey;
      break;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
      raddr = w.wr.atomic.remote_addr, rkey = w.wr.atomic.rkey;
      break;
    case IBV_WR_LOCAL_INV:
    case IBV_WR_SEND_WITH_INV:
      inv = w.invalidate_rkey;
      break;
    default:
      break;
  }
}

int w_post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad) {
  Outer o;
  const int rc = orig(qp->context).post_send(qp, wr, bad);
  if (!o.is) return rc;
  // The requests before *bad were posted; *bad failed with rc; the rest
  // never reached the queue.
  const ibv_send_wr* failed = rc ? (bad && *bad ? *bad : wr) : nullptr;
  for (const ibv_send_wr* w = wr; w; w = w->next) {
    uint64_t len = 0, raddr, rkey, inv;
    for (int i = 0; i < w->num_sge; ++i) len += w->sg_list[i].length;
    remote_of(*w, raddr, rkey, inv);
    const bool bind = w->opcode == IBV_WR_BIND_MW;
    const ibv_mw* mw = bind ? w->bind_mw.mw : nullptr;
    const ibv_mw_bind_info* bi = bind ? &w->bind_mw.bind_info : nullptr;
    emit(Ev::send, {u(qp), w->wr_id, uint64_t(w->opcode), w->send_flags, len, raddr, rkey, inv,
                    u(mw), bi ? u(bi->mr) : 0, bi ? bi->addr : 0, bi ? bi->length : 0,
                    bi ? bi->mw_access_flags : 0u, bind ? w->bind_mw.rkey : 0u,
                    mw ? mw->rkey : 0u, w == failed ? uint64_t(rc) : 0});
    if (w == failed) break;
  }
  return rc;
}

int w_poll_cq(ibv_cq* cq, int n, ibv_wc* wc) {
  Outer o;
  const int got = orig(cq->context).poll_cq(cq, n, wc);
  if (o.is)
    for (int i = 0; i < got; ++i)
      emit(Ev::wc, {wc[i].qp_num, wc[i].wr_id, uint64_t(wc[i].status), uint64_t(wc[i].opcode)});
  return got;
}

void wrap(ibv_context* c) {
  pthread_mutex_lock(&g_mu);
  const int n = g_count.load(std::memory_order_relaxed);
  int i = 0;
  while (i < n && g_saved[i].ctx != c) ++i;
  if (i < kMaxContexts) {
    g_saved[i] = Saved{c, c->ops};
    if (i == n) g_count.store(n + 1, std::memory_order_release);
    // A provider without an op keeps it missing: the inline verbs test for it.
    if (c->ops.alloc_mw) c->ops.alloc_mw = w_alloc_mw;
    if (c->ops.dealloc_mw) c->ops.dealloc_mw = w_dealloc_mw;
    if (c->ops.bind_mw) c->ops.bind_mw = w_bind_mw;
    if (c->ops.post_send) c->ops.post_send = w_post_send;
    if (c->ops.poll_cq) c->ops.poll_cq = w_poll_cq;
  }
  pthread_mutex_unlock(&g_mu);
}

}  // namespace

// ---- the exported verbs ------------------------------------------------------

extern "C" {

ibv_context* ibv_open_device(ibv_device* d) {
  NEXT(ibv_open_device, "IBVERBS_1.1");
  Outer o;
  ibv_context* c = real(d);
  if (c && o.is) {
    wrap(c);
    emit(Ev::open, {u(c)});
  }
  return c;
}

ibv_pd* ibv_alloc_pd(ibv_context* c) {
  NEXT(ibv_alloc_pd, "IBVERBS_1.1");
  Outer o;
  ibv_pd* pd = real(c);
  if (o.is) emit(Ev::pd, {u(pd), pd ? 0u : uint64_t(errno)});
  return pd;
}

int ibv_dealloc_pd(ibv_pd* pd) {
  NEXT(ibv_dealloc_pd, "IBVERBS_1.1");
  Outer o;
  const uint64_t id = u(pd);
  const int rc = real(pd);
  if (o.is) emit(Ev::pd_free, {id, uint64_t(rc)});
  return rc;
}

static ibv_mr* recorded_mr(bool outer, ibv_pd* pd, void* addr, size_t len, uint64_t iova,
                           unsigned access, ibv_mr* mr) {
  if (outer)
    emit(Ev::mr, {u(pd), u(addr), len, iova, access, u(mr), mr ? mr->rkey : 0u,
                  mr ? 0u : uint64_t(errno)});
  return mr;
}

ibv_mr* ibv_reg_mr(ibv_pd* pd, void* addr, size_t len, int access) {
  NEXT(ibv_reg_mr, "IBVERBS_1.1");
  Outer o;
  return recorded_mr(o.is, pd, addr, len, u(addr), unsigned(access), real(pd, addr, len, access));
}

ibv_mr* ibv_reg_mr_iova(ibv_pd* pd, void* addr, size_t len, uint64_t iova, int access) {
  NEXT(ibv_reg_mr_iova, "IBVERBS_1.7");
  Outer o;
  return recorded_mr(o.is, pd, addr, len, iova, unsigned(access),
                     real(pd, addr, len, iova, access));
}

ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t len, uint64_t iova, unsigned access) {
  NEXT(ibv_reg_mr_iova2, "IBVERBS_1.8");
  Outer o;
  return recorded_mr(o.is, pd, addr, len, iova, access, real(pd, addr, len, iova, access));
}

int ibv_dereg_mr(ibv_mr* mr) {
  NEXT(ibv_dereg_mr, "IBVERBS_1.1");
  Outer o;
  const uint64_t id = u(mr);
  const int rc = real(mr);
  if (o.is) emit(Ev::mr_free, {id, uint64_t(rc)});
  return rc;
}

int ibv_rereg_mr(ibv_mr* mr, int flags, ibv_pd* pd, void* addr, size_t len, int access) {
  NEXT(ibv_rereg_mr, "IBVERBS_1.1");
  Outer o;
  const int rc = real(mr, flags, pd, addr, len, access);
  // It fails with an IBV_REREG_MR_ERR_* code and says why in errno.
  const uint64_t err = rc == 0 ? 0 : errno ? uint64_t(errno) : uint64_t(EINVAL);
  if (o.is)
    emit(Ev::rereg, {u(mr), uint64_t(unsigned(flags)), u(pd), u(addr), len,
                     uint64_t(unsigned(access)), mr->rkey, err});
  return rc;
}

ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* a) {
  NEXT(ibv_create_qp, "IBVERBS_1.1");
  Outer o;
  const ibv_qp_type type = a->qp_type;
  const uint32_t depth = a->cap.max_send_wr;
  const int sig_all = a->sq_sig_all;
  ibv_qp* qp = real(pd, a);
  if (o.is)
    emit(Ev::qp, {u(pd), uint64_t(type), depth, uint64_t(sig_all != 0), u(qp), qp ? qp->qp_num : 0u,
                  qp ? 0u : uint64_t(errno)});
  return qp;
}

int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* a, int mask) {
  NEXT(ibv_modify_qp, "IBVERBS_1.1");
  Outer o;
  const int rc = real(qp, a, mask);
  if (o.is)
    emit(Ev::qp_mod, {u(qp), uint64_t(unsigned(mask)), uint64_t(a->qp_state),
                      (mask & IBV_QP_DEST_QPN) ? a->dest_qp_num : 0u, uint64_t(rc)});
  return rc;
}

int ibv_destroy_qp(ibv_qp* qp) {
  NEXT(ibv_destroy_qp, "IBVERBS_1.1");
  Outer o;
  const uint64_t id = u(qp);
  const int rc = real(qp);
  if (o.is) emit(Ev::qp_free, {id, uint64_t(rc)});
  return rc;
}

}  // extern "C"
