// The recorder that `mwcheck record` preloads into an unmodified libibverbs
// program (LD_PRELOAD). It appends one line per MW/MR verb to the log that
// MWCHECK_RECORD_LOG names (events.def); the mwcheck process turns the log
// into a trace once the program has ended.
//
// Most of these verbs are static inline in <infiniband/verbs.h> and jump
// through the context's ops table (ibv_alloc_mw, ibv_bind_mw, ibv_post_send,
// ibv_poll_cq, ibv_dealloc_mw, ibv_create_qp_ex, and the ibv_wr_* builders
// of an extended QP), so interposing symbols alone would miss them:
// ibv_open_device is interposed and each context's ops are wrapped, and so
// are the builders of each extended QP it creates. The exported verbs (PD,
// MR, QP) are interposed by symbol.
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

#include "record/events.hpp"

#undef ibv_reg_mr  // verbs.h makes these macros over the exported functions
#undef ibv_reg_mr_iova

namespace {

namespace ev = mwc::record::ev;

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

// Writes one event's line (events.hpp).
template <class T>
void emit(const T& e) {
  const int saved = errno;
  const int fd = log_fd();
  if (fd >= 0) {
    char line[mwc::record::kMaxEventLine];
    const size_t n = mwc::record::event_line(line, unsigned(getpid()), e);
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
  decltype(verbs_context::create_qp_ex) create_qp_ex;  // null: the provider has none
};
Saved g_saved[kMaxContexts];
std::atomic<int> g_count{0};
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;

const Saved& saved(ibv_context* c) {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i)
    if (g_saved[i].ctx == c) return g_saved[i];
  static const char msg[] = "mwcheck record: a verb on a context it never saw opened\n";
  if (write(2, msg, sizeof msg - 1) < 0) {}
  std::abort();
}
const ibv_context_ops& orig(ibv_context* c) { return saved(c).ops; }

ibv_mw* w_alloc_mw(ibv_pd* pd, ibv_mw_type type) {
  Outer o;
  ibv_mw* mw = orig(pd->context).alloc_mw(pd, type);
  if (o.is)
    emit(ev::mw{.pd = u(pd), .type = uint64_t(type), .mw = u(mw), .rkey = mw ? mw->rkey : 0u,
                .rc = mw ? 0u : uint64_t(errno)});
  return mw;
}

int w_dealloc_mw(ibv_mw* mw) {
  Outer o;
  const uint64_t id = u(mw);
  const int rc = orig(mw->context).dealloc_mw(mw);
  if (o.is) emit(ev::mw_free{.mw = id, .rc = uint64_t(rc)});
  return rc;
}

int w_bind_mw(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* b) {
  Outer o;
  const int rc = orig(qp->context).bind_mw(qp, mw, b);
  const ibv_mw_bind_info& i = b->bind_info;
  if (o.is)
    emit(ev::bind{.qp = u(qp), .mw = u(mw), .wr_id = b->wr_id, .flags = b->send_flags,
                  .mr = u(i.mr), .addr = i.addr, .len = i.length, .access = i.mw_access_flags,
                  .cur = mw->rkey, .rc = uint64_t(rc)});
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
    emit(ev::send{.qp = u(qp), .wr_id = w->wr_id, .opcode = uint64_t(w->opcode),
                  .flags = w->send_flags, .len = len, .raddr = raddr, .rkey = rkey, .inv = inv,
                  .mw = u(mw), .mr = bi ? u(bi->mr) : 0, .addr = bi ? bi->addr : 0,
                  .blen = bi ? bi->length : 0, .access = bi ? bi->mw_access_flags : 0u,
                  .key = bind ? w->bind_mw.rkey : 0u, .cur = mw ? mw->rkey : 0u,
                  .rc = w == failed ? uint64_t(rc) : 0});
    if (w == failed) break;
  }
  return rc;
}

int w_poll_cq(ibv_cq* cq, int n, ibv_wc* wc) {
  Outer o;
  const int got = orig(cq->context).poll_cq(cq, n, wc);
  if (o.is)
    for (int i = 0; i < got; ++i)
      emit(ev::wc{.num = wc[i].qp_num, .wr_id = wc[i].wr_id, .status = uint64_t(wc[i].status),
                  .opcode = uint64_t(wc[i].opcode)});
  return got;
}

// ---- the extended QP: ibv_wr_* build a batch of requests on an ibv_qp_ex,
// ibv_wr_complete posts it ---------------------------------------------------

// Each extended QP's own builders, and the requests built since wr_start.
constexpr int kMaxQpx = 256, kMaxBatch = 64;
struct Qpx {
  ibv_qp_ex* qpx;  // null: a free slot
  ibv_qp_ex orig;  // the provider's function pointers
  ev::send batch[kMaxBatch];
  int n;
  const ibv_mw* mw[kMaxBatch];  // a bind's window, whose rkey is read after posting
};
Qpx g_qpx[kMaxQpx];
pthread_mutex_t g_qpx_mu = PTHREAD_MUTEX_INITIALIZER;

Qpx& qpx_of(ibv_qp_ex* q) {
  for (Qpx& x : g_qpx)
    if (x.qpx == q) return x;
  static const char msg[] = "mwcheck record: an ibv_wr_* call on a QP it never saw created\n";
  if (write(2, msg, sizeof msg - 1) < 0) {}
  std::abort();
}

// Appends a request of the batch; returns its event (null past kMaxBatch:
// the rest of a huge batch goes unrecorded).
ev::send* built(Qpx& x, ibv_qp_ex* q, ibv_wr_opcode op) {
  if (x.n == kMaxBatch) return nullptr;
  x.mw[x.n] = nullptr;
  ev::send* f = &x.batch[x.n++];
  *f = ev::send{.qp = u(&q->qp_base), .wr_id = q->wr_id, .opcode = op, .flags = q->wr_flags};
  return f;
}
ev::send* last(Qpx& x) { return x.n ? &x.batch[x.n - 1] : nullptr; }

void x_start(ibv_qp_ex* q) {
  Qpx& x = qpx_of(q);
  x.n = 0;
  x.orig.wr_start(q);
}
void x_abort(ibv_qp_ex* q) {
  Qpx& x = qpx_of(q);
  x.n = 0;
  x.orig.wr_abort(q);
}
int x_complete(ibv_qp_ex* q) {
  Qpx& x = qpx_of(q);
  Outer o;
  const int rc = x.orig.wr_complete(q);
  // A failed batch is refused at its first request, as ibv_post_send's is.
  for (int i = 0; o.is && i < x.n; ++i) {
    if (x.mw[i]) x.batch[i].cur = x.mw[i]->rkey;
    x.batch[i].rc = uint64_t(rc);
    emit(x.batch[i]);
    if (rc) break;
  }
  x.n = 0;
  return rc;
}
void x_rdma(ibv_qp_ex* q, ibv_wr_opcode op, uint32_t rkey, uint64_t raddr) {
  if (ev::send* f = built(qpx_of(q), q, op)) f->rkey = rkey, f->raddr = raddr;
}
void x_rdma_write(ibv_qp_ex* q, uint32_t rkey, uint64_t raddr) {
  qpx_of(q).orig.wr_rdma_write(q, rkey, raddr);
  x_rdma(q, IBV_WR_RDMA_WRITE, rkey, raddr);
}
void x_rdma_write_imm(ibv_qp_ex* q, uint32_t rkey, uint64_t raddr, __be32 imm) {
  qpx_of(q).orig.wr_rdma_write_imm(q, rkey, raddr, imm);
  x_rdma(q, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, raddr);
}
void x_rdma_read(ibv_qp_ex* q, uint32_t rkey, uint64_t raddr) {
  qpx_of(q).orig.wr_rdma_read(q, rkey, raddr);
  x_rdma(q, IBV_WR_RDMA_READ, rkey, raddr);
}
void x_cmp_swp(ibv_qp_ex* q, uint32_t rkey, uint64_t raddr, uint64_t compare, uint64_t swap) {
  qpx_of(q).orig.wr_atomic_cmp_swp(q, rkey, raddr, compare, swap);
  x_rdma(q, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, raddr);
}
void x_fetch_add(ibv_qp_ex* q, uint32_t rkey, uint64_t raddr, uint64_t add) {
  qpx_of(q).orig.wr_atomic_fetch_add(q, rkey, raddr, add);
  x_rdma(q, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, raddr);
}
void x_send(ibv_qp_ex* q) {
  qpx_of(q).orig.wr_send(q);
  built(qpx_of(q), q, IBV_WR_SEND);
}
void x_send_imm(ibv_qp_ex* q, __be32 imm) {
  qpx_of(q).orig.wr_send_imm(q, imm);
  built(qpx_of(q), q, IBV_WR_SEND_WITH_IMM);
}
void x_inv(ibv_qp_ex* q, ibv_wr_opcode op, uint32_t rkey) {
  if (ev::send* f = built(qpx_of(q), q, op)) f->inv = rkey;
}
void x_send_inv(ibv_qp_ex* q, uint32_t rkey) {
  qpx_of(q).orig.wr_send_inv(q, rkey);
  x_inv(q, IBV_WR_SEND_WITH_INV, rkey);
}
void x_local_inv(ibv_qp_ex* q, uint32_t rkey) {
  qpx_of(q).orig.wr_local_inv(q, rkey);
  x_inv(q, IBV_WR_LOCAL_INV, rkey);
}
void x_bind_mw(ibv_qp_ex* q, ibv_mw* mw, uint32_t rkey, const ibv_mw_bind_info* b) {
  Qpx& x = qpx_of(q);
  x.orig.wr_bind_mw(q, mw, rkey, b);
  if (ev::send* f = built(x, q, IBV_WR_BIND_MW)) {
    x.mw[x.n - 1] = mw;
    f->mw = u(mw), f->mr = u(b->mr), f->addr = b->addr, f->blen = b->length;
    f->access = b->mw_access_flags, f->key = rkey;
  }
}
// The data of the request built last: only its length is recorded.
template <class T>
uint64_t total_length(size_t n, const T* l) {
  uint64_t len = 0;
  for (size_t i = 0; i < n; ++i) len += l[i].length;
  return len;
}
void data_length(Qpx& x, uint64_t len) {
  if (ev::send* f = last(x)) f->len = len;
}
void x_set_sge(ibv_qp_ex* q, uint32_t lkey, uint64_t addr, uint32_t len) {
  qpx_of(q).orig.wr_set_sge(q, lkey, addr, len);
  data_length(qpx_of(q), len);
}
void x_set_sge_list(ibv_qp_ex* q, size_t n, const ibv_sge* l) {
  qpx_of(q).orig.wr_set_sge_list(q, n, l);
  data_length(qpx_of(q), total_length(n, l));
}
void x_set_inline_data(ibv_qp_ex* q, void* addr, size_t len) {
  qpx_of(q).orig.wr_set_inline_data(q, addr, len);
  data_length(qpx_of(q), len);
}
void x_set_inline_data_list(ibv_qp_ex* q, size_t n, const ibv_data_buf* l) {
  qpx_of(q).orig.wr_set_inline_data_list(q, n, l);
  data_length(qpx_of(q), total_length(n, l));
}

// Wraps an extended QP's builders (those the provider has).
void wrap_qpx(ibv_qp_ex* q) {
  pthread_mutex_lock(&g_qpx_mu);
  Qpx* slot = nullptr;
  for (Qpx& x : g_qpx)
    if (!x.qpx || x.qpx == q) {
      slot = &x;
      break;
    }
  if (slot) {
    slot->qpx = q;
    slot->orig = *q;
    slot->n = 0;
#define WRAP(field, fn) \
  if (q->field) q->field = fn
    WRAP(wr_start, x_start);
    WRAP(wr_complete, x_complete);
    WRAP(wr_abort, x_abort);
    WRAP(wr_rdma_write, x_rdma_write);
    WRAP(wr_rdma_write_imm, x_rdma_write_imm);
    WRAP(wr_rdma_read, x_rdma_read);
    WRAP(wr_atomic_cmp_swp, x_cmp_swp);
    WRAP(wr_atomic_fetch_add, x_fetch_add);
    WRAP(wr_send, x_send);
    WRAP(wr_send_imm, x_send_imm);
    WRAP(wr_send_inv, x_send_inv);
    WRAP(wr_local_inv, x_local_inv);
    WRAP(wr_bind_mw, x_bind_mw);
    WRAP(wr_set_sge, x_set_sge);
    WRAP(wr_set_sge_list, x_set_sge_list);
    WRAP(wr_set_inline_data, x_set_inline_data);
    WRAP(wr_set_inline_data_list, x_set_inline_data_list);
#undef WRAP
  }
  pthread_mutex_unlock(&g_qpx_mu);
}

void forget_qpx(const ibv_qp* qp) {
  pthread_mutex_lock(&g_qpx_mu);
  for (Qpx& x : g_qpx)
    if (x.qpx && &x.qpx->qp_base == qp) x.qpx = nullptr;
  pthread_mutex_unlock(&g_qpx_mu);
}

void log_qp(ibv_pd* pd, ibv_qp_type type, uint32_t depth, int sig_all, ibv_qp* qp) {
  emit(ev::qp{.pd = u(pd), .type = uint64_t(type), .depth = depth, .sig_all = uint64_t(sig_all != 0),
               .qp = u(qp), .num = qp ? qp->qp_num : 0u, .rc = qp ? 0u : uint64_t(errno)});
}

ibv_qp* w_create_qp_ex(ibv_context* c, ibv_qp_init_attr_ex* a) {
  Outer o;
  ibv_pd* pd = (a->comp_mask & IBV_QP_INIT_ATTR_PD) ? a->pd : nullptr;
  const ibv_qp_type type = a->qp_type;
  const uint32_t depth = a->cap.max_send_wr;
  const int sig_all = a->sq_sig_all;
  const bool ops = a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  ibv_qp* qp = saved(c).create_qp_ex(c, a);
  if (o.is) log_qp(pd, type, depth, sig_all, qp);
  if (qp && ops) {
    static const auto to_ex = next<decltype(&::ibv_qp_to_qp_ex)>("ibv_qp_to_qp_ex", "IBVERBS_1.6");
    if (ibv_qp_ex* q = to_ex(qp)) wrap_qpx(q);
  }
  return qp;
}

void wrap(ibv_context* c) {
  pthread_mutex_lock(&g_mu);
  const int n = g_count.load(std::memory_order_relaxed);
  int i = 0;
  while (i < n && g_saved[i].ctx != c) ++i;
  if (i < kMaxContexts) {
    verbs_context* v = verbs_get_ctx_op(c, create_qp_ex);
    g_saved[i] = Saved{c, c->ops, v ? v->create_qp_ex : nullptr};
    if (v) v->create_qp_ex = w_create_qp_ex;
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
    emit(ev::open{.ctx = u(c)});
  }
  return c;
}

ibv_pd* ibv_alloc_pd(ibv_context* c) {
  NEXT(ibv_alloc_pd, "IBVERBS_1.1");
  Outer o;
  ibv_pd* pd = real(c);
  if (o.is) emit(ev::pd{.pd = u(pd), .rc = pd ? 0u : uint64_t(errno)});
  return pd;
}

int ibv_dealloc_pd(ibv_pd* pd) {
  NEXT(ibv_dealloc_pd, "IBVERBS_1.1");
  Outer o;
  const uint64_t id = u(pd);
  const int rc = real(pd);
  if (o.is) emit(ev::pd_free{.pd = id, .rc = uint64_t(rc)});
  return rc;
}

static ibv_mr* recorded_mr(bool outer, ibv_pd* pd, void* addr, size_t len, uint64_t iova,
                           unsigned access, ibv_mr* mr) {
  if (outer)
    emit(ev::mr{.pd = u(pd), .addr = u(addr), .len = len, .iova = iova, .access = access,
                .mr = u(mr), .rkey = mr ? mr->rkey : 0u, .rc = mr ? 0u : uint64_t(errno)});
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
  if (o.is) emit(ev::mr_free{.mr = id, .rc = uint64_t(rc)});
  return rc;
}

int ibv_rereg_mr(ibv_mr* mr, int flags, ibv_pd* pd, void* addr, size_t len, int access) {
  NEXT(ibv_rereg_mr, "IBVERBS_1.1");
  Outer o;
  const int rc = real(mr, flags, pd, addr, len, access);
  // It fails with an IBV_REREG_MR_ERR_* code and says why in errno.
  const uint64_t err = rc == 0 ? 0 : errno ? uint64_t(errno) : uint64_t(EINVAL);
  if (o.is)
    emit(ev::rereg{.mr = u(mr), .flags = uint64_t(unsigned(flags)), .pd = u(pd), .addr = u(addr),
                   .len = len, .access = uint64_t(unsigned(access)), .rkey = mr->rkey, .rc = err});
  return rc;
}

ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* a) {
  NEXT(ibv_create_qp, "IBVERBS_1.1");
  Outer o;
  const ibv_qp_type type = a->qp_type;
  const uint32_t depth = a->cap.max_send_wr;
  const int sig_all = a->sq_sig_all;
  ibv_qp* qp = real(pd, a);
  if (o.is) log_qp(pd, type, depth, sig_all, qp);
  return qp;
}

int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* a, int mask) {
  NEXT(ibv_modify_qp, "IBVERBS_1.1");
  Outer o;
  const int rc = real(qp, a, mask);
  if (o.is)
    emit(ev::qp_mod{.qp = u(qp), .mask = uint64_t(unsigned(mask)), .state = uint64_t(a->qp_state),
                    .dest = (mask & IBV_QP_DEST_QPN) ? a->dest_qp_num : 0u, .rc = uint64_t(rc)});
  return rc;
}

int ibv_destroy_qp(ibv_qp* qp) {
  NEXT(ibv_destroy_qp, "IBVERBS_1.1");
  Outer o;
  const uint64_t id = u(qp);
  const int rc = real(qp);
  if (rc == 0) forget_qpx(reinterpret_cast<const ibv_qp*>(id));
  if (o.is) emit(ev::qp_free{.qp = id, .rc = uint64_t(rc)});
  return rc;
}

}  // extern "C"
