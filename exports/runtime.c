/* mwcheck's device session (adapters/verbs/session_*.cpp) in C, for exported
 * reproducers: one function per op of mwcheck's op table, each doing to the
 * device what the session does and returning the outcome as mwcheck's
 * canonical text (OK, EPERM, EMPTY, SKIP, TIMEOUT, IBV_WC_REM_ACCESS_ERR,
 * IBV_WC_SUCCESS IBV_WC_BIND_MW, OK key=+1).
 *
 * Each trace QP gets a peer QP of the same type on the same device, in a PD
 * of the runtime's own, connected to it in loopback through the device's
 * RoCE v2 GID: the remote side of the peer_* ops. Trace buffers are mapped
 * at the very addresses mwcheck's model gives them; rkeys are resolved from
 * the trace's references (w0, w0.prev, m0, a raw number).
 *
 * The program mwcheck generates defines MWC_ERRNOS, MWC_WC_STATUSES and
 * MWC_WC_OPCODES (from its vocabulary) before this text, and calls these
 * functions from main. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#if !defined(MWC_ERRNOS) || !defined(MWC_WC_STATUSES) || !defined(MWC_WC_OPCODES)
#error "mwcheck export defines the outcome vocabulary before this runtime"
#endif

#define MWC_NONE 0xffffffffu
#define MWC_ACCESS_LOCAL_READ (1u << 15) /* DET's right; libibverbs has none */
#define MWC_BUF_BASE 0x100000000000ull   /* buffer h lives at BASE + h * 2^32 */
#define MWC_SCRATCH (1u << 20)           /* the peer's local buffer */
#define MWC_SHADOW_MAX (1u << 20)        /* buffers up to this size get data checks */
#define MWC_INLINE 64u
#define MWC_CQ_DEPTH 256
#define MWC_RETRY 1
#define MWC_ACK_TIMEOUT 14 /* 4.096 us * 2^14 = 67 ms per try */

/* Addresses: raw, or relative to a buffer, an MR or a window (the model's). */
enum { MWC_BASE_RAW, MWC_BASE_BUF, MWC_BASE_MR, MWC_BASE_MW };
struct mwc_addr {
  int base;
  unsigned h;
  uint64_t off;
};
#define MWC_ADDR_RAW(v) ((struct mwc_addr){MWC_BASE_RAW, MWC_NONE, (uint64_t)(v)})
#define MWC_ADDR_BUF(h, off) ((struct mwc_addr){MWC_BASE_BUF, (h), (uint64_t)(off)})
#define MWC_ADDR_MR(h, off) ((struct mwc_addr){MWC_BASE_MR, (h), (uint64_t)(off)})
#define MWC_ADDR_MW(h, off) ((struct mwc_addr){MWC_BASE_MW, (h), (uint64_t)(off)})

/* rkeys: a window's current key, the one before its last bind, an MR's, or
 * a raw number (a guess, passed as it is); delta moves the key byte. */
enum { MWC_RKEY_BASE_RAW, MWC_RKEY_BASE_MW, MWC_RKEY_BASE_PREV, MWC_RKEY_BASE_MR };
struct mwc_rkey {
  int base;
  unsigned h; /* the object, or the raw rkey */
  int delta;
};
#define MWC_RKEY_RAW(v) ((struct mwc_rkey){MWC_RKEY_BASE_RAW, (v), 0})
#define MWC_RKEY_MW(h, d) ((struct mwc_rkey){MWC_RKEY_BASE_MW, (h), (d)})
#define MWC_RKEY_PREV(h, d) ((struct mwc_rkey){MWC_RKEY_BASE_PREV, (h), (d)})
#define MWC_RKEY_MR(h, d) ((struct mwc_rkey){MWC_RKEY_BASE_MR, (h), (d)})

/* The key byte a BIND_MW work request asks for: relative to the window's
 * current rkey, or absolute, counted from its key byte at allocation. */
struct mwc_key {
  int abs;
  unsigned v;
};
#define MWC_KEY_REL(d) ((struct mwc_key){0, (unsigned)(d)})
#define MWC_KEY_ABS(v) ((struct mwc_key){1, (v)})

/* An outcome, as mwcheck's Outcome: ret is OK, an errno name or a verdict. */
struct mwc_outcome {
  const char *ret;
  const char *wc;    /* completion status, or NULL */
  const char *wc_op; /* completion opcode (poll_cq), or NULL */
  int key;           /* a successful bind: key byte moved since allocation; -1 none */
};

struct mwc_buf {
  int live;
  uint8_t *p;
  uint64_t len;
  uint8_t *shadow; /* what the buffer should hold (small buffers) */
};
struct mwc_mr {
  struct ibv_mr *mr;
  uint64_t va, iova, len;
};
struct mwc_mw {
  struct ibv_mw *mw;
  uint8_t alloc_byte;
  uint32_t cur, prev; /* the consumer's copy of the rkey, and the one before */
  int bound, zero_based;
  uint64_t addr, len;
};
struct mwc_wc {
  uint64_t wr_id;
  int status; /* enum ibv_wc_status */
  const char *op;
};
struct mwc_posted {
  uint64_t wr_id;
  const char *op;
  int signaled;
};
struct mwc_qp {
  struct ibv_qp *qp, *peer;
  struct ibv_cq *scq, *rcq, *pcq; /* trace completions, receives, the peer's */
  int state;                      /* enum ibv_qp_state */
  unsigned type, pd;
  int sig_all;
  int recvs, peer_recvs;          /* receives posted and not yet completed */
  struct mwc_wc *stash;           /* completions read, not yet polled */
  size_t stash_head, stash_n, stash_cap;
  struct mwc_posted *posted;      /* signaled work requests not yet completed */
  size_t posted_n, posted_cap;
};

struct mwc_rt {
  struct ibv_context *ctx;
  struct ibv_pd *peer_pd;
  struct ibv_mr *scratch_mr;
  uint8_t *scratch;
  union ibv_gid gid;
  int gid_index;
  uint8_t port;                      /* MWC_PORT, as mwcheck's --port */
  uint64_t next_wr;
  unsigned op_index;
  int op_timeout_ms, settle_ms;
  int stuck_ms;                      /* a verb still inside after this is given up on */
  FILE *op_log;                      /* MWC_OP_LOG: told each op before it starts */
  _Atomic uint64_t op_start_ms;      /* when the running op began; 0 between ops */
  _Atomic unsigned watched_op;       /* the running op, for the watchdog */
  const char *finding;               /* the finding's id and op, for the watchdog's verdict */
  unsigned finding_op;
  unsigned caps[5];
  struct mwc_buf *bufs;
  struct ibv_pd **pds;
  struct mwc_mr *mrs;
  struct mwc_mw *mws;
  struct mwc_qp *qps;
  char text[128];
  int first_diff; /* the first op whose outcome differed; -1 none */
};

static const char *mwc_errno_name(int e) {
  switch (e) {
#define X(n) \
  case n:    \
    return #n;
    MWC_ERRNOS(X)
#undef X
    default:
      return "EIO"; /* one the vocabulary has no name for */
  }
}
static const char *mwc_wc_status_name(int s) {
  switch (s) {
#define X(n) \
  case n:    \
    return #n;
    MWC_WC_STATUSES(X)
#undef X
    default:
      return "IBV_WC_GENERAL_ERR";
  }
}
static const char *mwc_wc_opcode_name(int op) {
  switch (op) {
#define X(n) \
  case n:    \
    return #n;
    MWC_WC_OPCODES(X)
#undef X
    default:
      return NULL;
  }
}

/* Returns the canonical text of an outcome (refmodel/outcome.cpp to_text). */
static const char *mwc_text(struct mwc_rt *rt, struct mwc_outcome o) {
  char *s = rt->text;
  size_t n = sizeof rt->text;
  int k = 0;
  s[0] = 0;
  /* A completion status implies the post itself returned OK. */
  if (!(o.wc && strcmp(o.ret, "OK") == 0)) k += snprintf(s + k, n - (size_t)k, "%s", o.ret);
  if (o.wc) k += snprintf(s + k, n - (size_t)k, "%s%s", k ? " " : "", o.wc);
  if (o.wc_op) k += snprintf(s + k, n - (size_t)k, "%s%s", k ? " " : "", o.wc_op);
  if (o.key >= 0) snprintf(s + k, n - (size_t)k, "%skey=+%d", k ? " " : "", o.key);
  return s;
}

static struct mwc_outcome mwc_with(const char *ret, const char *wc) {
  struct mwc_outcome o = {ret, wc, NULL, -1};
  return o;
}
static struct mwc_outcome mwc_fail(int e) { return mwc_with(mwc_errno_name(e), NULL); }
#define MWC_RETURN(o) return mwc_text(rt, (o))
#define MWC_SKIP() MWC_RETURN(mwc_with("SKIP", NULL))

static uint64_t mwc_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}
static void mwc_pause(void) { usleep(100); }
static uint64_t mwc_buf_va(unsigned h) { return MWC_BUF_BASE + ((uint64_t)h << 32); }
static uint8_t mwc_fill_byte(uint64_t va) { return (uint8_t)(((va * 131) >> 3) ^ va); }
static uint8_t mwc_write_byte(unsigned op, uint64_t i) { return (uint8_t)(op * 29 + i * 13 + 0x5a); }
static uint32_t mwc_with_key_byte(uint32_t rkey, uint8_t b) { return (rkey & ~0xffu) | b; }
static int mwc_key_outcome(uint32_t rkey, uint8_t alloc_byte) { return (uint8_t)((uint8_t)rkey - alloc_byte); }
/* The trace's access bits are verbs' own, but for DET's LOCAL_READ; on an MR,
 * ZERO_BASED means "register at iova 0". */
static unsigned mwc_verbs_access(unsigned a, int for_mr) {
  a &= ~MWC_ACCESS_LOCAL_READ;
  if (for_mr) a &= ~(unsigned)IBV_ACCESS_ZERO_BASED;
  return a;
}

/* ---- opening the device --------------------------------------------------- */

/* Reads the environment variable `name` into *v when it is set: a whole
 * number from lo to hi. Returns 0, or prints why not and returns -1. */
static int mwc_env(const char *name, long lo, long hi, int *v) {
  const char *s = getenv(name);
  char *end = NULL;
  long x;
  if (!s) return 0;
  errno = 0;
  x = strtol(s, &end, 10);
  if (!*s || *end || errno || x < lo || x > hi) {
    fprintf(stderr, "setup: %s=%s: give a whole number from %ld to %ld\n", name, s, lo, hi);
    return -1;
  }
  *v = (int)x;
  return 0;
}

/* Opens `device` (NULL: the first one) at port MWC_PORT (1), finds its
 * RoCE v2 GID (or takes MWC_GID_INDEX) and sizes the object tables.
 * Returns 0, or prints why not and returns -1. */
static int mwc_open(struct mwc_rt *rt, const char *device, const unsigned caps[5]) {
  struct ibv_device **list;
  struct ibv_port_attr pa;
  int n = 0, i, port = MWC_PORT_DEFAULT, gid_index = MWC_GID_INDEX_DEFAULT;
  memset(rt, 0, sizeof *rt);
  rt->next_wr = 1;
  rt->op_timeout_ms = MWC_OP_TIMEOUT_MS_DEFAULT;
  rt->settle_ms = MWC_SETTLE_MS;
  rt->first_diff = -1;
  rt->stuck_ms = MWC_STUCK_MS_DEFAULT;
  /* mwcheck's settings, its --op-timeout, --port and --gid-index among
   * them: the ranges and defaults come with the program. */
  if (mwc_env("MWC_OP_TIMEOUT_MS", MWC_OP_TIMEOUT_MS_RANGE, &rt->op_timeout_ms) ||
      mwc_env("MWC_STUCK_MS", MWC_STUCK_MS_RANGE, &rt->stuck_ms) ||
      mwc_env("MWC_PORT", MWC_PORT_RANGE, &port) || mwc_env("MWC_GID_INDEX", MWC_GID_INDEX_RANGE, &gid_index))
    return -1;
  rt->port = (uint8_t)port;
  /* A console, say: written before the op's verb is called, so a machine
   * whose kernel dies in it has the op's number as its last line. */
  if (getenv("MWC_OP_LOG")) rt->op_log = fopen(getenv("MWC_OP_LOG"), "w");
  list = ibv_get_device_list(&n);
  if (!list || n == 0) {
    fprintf(stderr, "setup: no RDMA device (ibv_get_device_list found none)\n");
    if (list) ibv_free_device_list(list);
    return -1;
  }
  for (i = 0; i < n && !rt->ctx; ++i)
    if (!device || strcmp(device, ibv_get_device_name(list[i])) == 0) rt->ctx = ibv_open_device(list[i]);
  ibv_free_device_list(list);
  if (!rt->ctx) {
    fprintf(stderr, "setup: cannot open RDMA device '%s': %s\n", device ? device : "", strerror(errno));
    return -1;
  }
  /* Loopback connections address the device's own RoCE v2 GID (or, on
   * InfiniBand, its first GID), or the one MWC_GID_INDEX names. */
  if (ibv_query_port(rt->ctx, rt->port, &pa)) {
    fprintf(stderr, "setup: ibv_query_port of port %u failed: %s (MWC_PORT picks another)\n", rt->port,
            strerror(errno));
    return -1;
  }
  rt->gid_index = -1;
  if (gid_index >= 0) {
    if (ibv_query_gid(rt->ctx, rt->port, gid_index, &rt->gid)) {
      fprintf(stderr, "setup: port %u has no GID at index %d (MWC_GID_INDEX)\n", rt->port, gid_index);
      return -1;
    }
    rt->gid_index = gid_index;
  }
  for (i = 0; i < pa.gid_tbl_len && rt->gid_index < 0; ++i) {
    struct ibv_gid_entry e;
    int v4, usable;
    if (ibv_query_gid_ex(rt->ctx, rt->port, (uint32_t)i, &e, 0)) continue;
    v4 = e.gid.global.subnet_prefix == 0 && (e.gid.global.interface_id & 0xffffffffull) == 0xffff0000ull;
    usable = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? v4 && e.gid_type == IBV_GID_TYPE_ROCE_V2
                                                      : e.gid.global.interface_id != 0;
    if (usable) {
      rt->gid_index = i;
      rt->gid = e.gid;
    }
  }
  if (rt->gid_index < 0) {
    fprintf(stderr, "setup: the device has no usable GID (for RoCE: an IPv4 address on its netdev)\n");
    return -1;
  }
  rt->peer_pd = ibv_alloc_pd(rt->ctx);
  rt->scratch = calloc(1, MWC_SCRATCH);
  if (rt->peer_pd && rt->scratch)
    rt->scratch_mr = ibv_reg_mr(rt->peer_pd, rt->scratch, MWC_SCRATCH, IBV_ACCESS_LOCAL_WRITE);
  if (!rt->scratch_mr) {
    fprintf(stderr, "setup: cannot set up the peer's memory: %s\n", strerror(errno));
    return -1;
  }
  memcpy(rt->caps, caps, sizeof rt->caps);
  rt->bufs = calloc(caps[0], sizeof *rt->bufs);
  rt->pds = calloc(caps[1], sizeof *rt->pds);
  rt->mrs = calloc(caps[2], sizeof *rt->mrs);
  rt->mws = calloc(caps[3], sizeof *rt->mws);
  rt->qps = calloc(caps[4], sizeof *rt->qps);
  if (!rt->bufs || !rt->pds || !rt->mrs || !rt->mws || !rt->qps) {
    fprintf(stderr, "setup: out of memory\n");
    return -1;
  }
  return 0;
}

/* Frees everything, windows first: a QP destroyed under a bound type 2
 * window stalls rxe. */
static void mwc_close(struct mwc_rt *rt) {
  unsigned i;
  for (i = 0; i < rt->caps[3]; ++i)
    if (rt->mws[i].mw) ibv_dealloc_mw(rt->mws[i].mw);
  for (i = 0; i < rt->caps[4]; ++i) {
    struct mwc_qp *q = &rt->qps[i];
    if (q->qp) ibv_destroy_qp(q->qp);
    if (q->peer) ibv_destroy_qp(q->peer);
    if (q->scq) ibv_destroy_cq(q->scq);
    if (q->rcq) ibv_destroy_cq(q->rcq);
    if (q->pcq) ibv_destroy_cq(q->pcq);
  }
  for (i = 0; i < rt->caps[2]; ++i)
    if (rt->mrs[i].mr) ibv_dereg_mr(rt->mrs[i].mr);
  for (i = 0; i < rt->caps[1]; ++i)
    if (rt->pds[i]) ibv_dealloc_pd(rt->pds[i]);
  if (rt->scratch_mr) ibv_dereg_mr(rt->scratch_mr);
  if (rt->peer_pd) ibv_dealloc_pd(rt->peer_pd);
  if (rt->ctx) ibv_close_device(rt->ctx);
  if (rt->op_log) fclose(rt->op_log);
}

/* ---- addresses, keys and data ---------------------------------------------- */

static uint64_t mwc_resolve(const struct mwc_rt *rt, struct mwc_addr a) {
  switch (a.base) {
    case MWC_BASE_BUF:
      return mwc_buf_va(a.h) + a.off;
    case MWC_BASE_MR:
      return (a.h < rt->caps[2] ? rt->mrs[a.h].iova : 0) + a.off;
    case MWC_BASE_MW:
      if (a.h >= rt->caps[3]) return a.off;
      return (rt->mws[a.h].bound && !rt->mws[a.h].zero_based ? rt->mws[a.h].addr : 0) + a.off;
    default:
      return a.off;
  }
}

static uint32_t mwc_resolve_rkey(const struct mwc_rt *rt, struct mwc_rkey r) {
  uint32_t base = 0;
  switch (r.base) {
    case MWC_RKEY_BASE_RAW:
      return r.h;
    case MWC_RKEY_BASE_MW:
      base = r.h < rt->caps[3] ? rt->mws[r.h].cur : 0;
      break;
    case MWC_RKEY_BASE_PREV:
      base = r.h < rt->caps[3] ? rt->mws[r.h].prev : 0;
      break;
    default:
      base = r.h < rt->caps[2] && rt->mrs[r.h].mr ? rt->mrs[r.h].mr->rkey : 0;
      break;
  }
  return mwc_with_key_byte(base, (uint8_t)(base + (uint32_t)r.delta));
}

/* Where a remote access through device rkey `rkey` at `addr` lands. */
static uint64_t mwc_target_of(const struct mwc_rt *rt, uint32_t rkey, uint64_t addr) {
  unsigned i;
  for (i = 0; i < rt->caps[3]; ++i) {
    const struct mwc_mw *w = &rt->mws[i];
    if (w->mw && w->bound && (w->cur >> 8) == (rkey >> 8)) return w->zero_based ? w->addr + addr : addr;
  }
  for (i = 0; i < rt->caps[2]; ++i) {
    const struct mwc_mr *m = &rt->mrs[i];
    if (m->mr && (m->mr->rkey >> 8) == (rkey >> 8)) return m->iova == 0 ? m->va + addr : addr;
  }
  return addr;
}

static uint8_t *mwc_shadow_at(struct mwc_rt *rt, uint64_t va, uint64_t len) {
  unsigned i;
  for (i = 0; i < rt->caps[0]; ++i) {
    struct mwc_buf *b = &rt->bufs[i];
    const uint64_t base = (uint64_t)(uintptr_t)b->p;
    if (b->live && b->shadow && va >= base && len <= b->len && va - base <= b->len - len)
      return b->shadow + (va - base);
  }
  return NULL;
}

/* Returns whether every checked buffer holds what its shadow says. */
static int mwc_data_ok(struct mwc_rt *rt) {
  int ok = 1;
  unsigned i;
  for (i = 0; i < rt->caps[0]; ++i) {
    struct mwc_buf *b = &rt->bufs[i];
    if (!b->live || !b->shadow || memcmp(b->p, b->shadow, b->len) == 0) continue;
    ok = 0;
    memcpy(b->shadow, b->p, b->len); /* report once, then go on from here */
  }
  return ok;
}

/* ---- resources ----------------------------------------------------------------- */

const char *mwc_buf(struct mwc_rt *rt, unsigned h, uint64_t len) {
  struct mwc_buf *b;
  void *p;
  uint64_t i;
  if (h >= rt->caps[0] || rt->bufs[h].live) MWC_SKIP();
  p = mmap((void *)(uintptr_t)mwc_buf_va(h), len, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) MWC_RETURN(mwc_fail(errno));
  b = &rt->bufs[h];
  b->live = 1;
  b->p = p;
  b->len = len;
  if (len <= MWC_SHADOW_MAX) {
    for (i = 0; i < len; ++i) b->p[i] = mwc_fill_byte(mwc_buf_va(h) + i);
    b->shadow = malloc(len);
    if (b->shadow) memcpy(b->shadow, b->p, len);
  }
  MWC_RETURN(mwc_with("OK", NULL));
}

const char *mwc_alloc_pd(struct mwc_rt *rt, unsigned h) {
  if (h >= rt->caps[1] || rt->pds[h]) MWC_SKIP();
  rt->pds[h] = ibv_alloc_pd(rt->ctx);
  MWC_RETURN(rt->pds[h] ? mwc_with("OK", NULL) : mwc_fail(errno));
}

const char *mwc_dealloc_pd(struct mwc_rt *rt, unsigned h) {
  int rc;
  if (h >= rt->caps[1] || !rt->pds[h]) MWC_SKIP();
  if ((rc = ibv_dealloc_pd(rt->pds[h]))) MWC_RETURN(mwc_fail(rc));
  rt->pds[h] = NULL;
  MWC_RETURN(mwc_with("OK", NULL));
}

/* Registers MR h; `access` < 0 stands for librdmacm's rdma_reg_* helpers,
 * which are ibv_reg_mr with their fixed rights (-access). */
static struct mwc_outcome mwc_reg(struct mwc_rt *rt, unsigned h, unsigned pd, struct mwc_addr addr,
                                  uint64_t len, unsigned access, int rdma_helper) {
  uint64_t va;
  int zb;
  struct ibv_mr *mr;
  if (pd >= rt->caps[1] || !rt->pds[pd] || h >= rt->caps[2] || rt->mrs[h].mr) return mwc_with("SKIP", NULL);
  va = mwc_resolve(rt, addr);
  zb = !rdma_helper && (access & IBV_ACCESS_ZERO_BASED);
  /* ZERO_BASED on an MR means "addressed from 0": register at iova 0. */
  if (zb)
    mr = ibv_reg_mr_iova2(rt->pds[pd], (void *)(uintptr_t)va, len, 0, mwc_verbs_access(access, 1));
  else
    mr = ibv_reg_mr(rt->pds[pd], (void *)(uintptr_t)va, len,
                    (int)(rdma_helper ? access : mwc_verbs_access(access, 1)));
  if (!mr) return mwc_fail(errno);
  rt->mrs[h].mr = mr;
  rt->mrs[h].va = va;
  rt->mrs[h].iova = zb ? 0 : va;
  rt->mrs[h].len = len;
  return mwc_with("OK", NULL);
}

const char *mwc_reg_mr(struct mwc_rt *rt, unsigned h, unsigned pd, struct mwc_addr addr, uint64_t len,
                       unsigned access) {
  MWC_RETURN(mwc_reg(rt, h, pd, addr, len, access, 0));
}
/* librdmacm's rdma_reg_msgs/read/write are inline ibv_reg_mr calls with
 * these rights (rdma/rdma_verbs.h). */
const char *mwc_rdma_reg_msgs(struct mwc_rt *rt, unsigned h, unsigned pd, struct mwc_addr addr, uint64_t len) {
  MWC_RETURN(mwc_reg(rt, h, pd, addr, len, IBV_ACCESS_LOCAL_WRITE, 1));
}
const char *mwc_rdma_reg_read(struct mwc_rt *rt, unsigned h, unsigned pd, struct mwc_addr addr, uint64_t len) {
  MWC_RETURN(mwc_reg(rt, h, pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 1));
}
const char *mwc_rdma_reg_write(struct mwc_rt *rt, unsigned h, unsigned pd, struct mwc_addr addr, uint64_t len) {
  MWC_RETURN(mwc_reg(rt, h, pd, addr, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 1));
}

const char *mwc_dereg_mr(struct mwc_rt *rt, unsigned h) {
  int rc;
  if (h >= rt->caps[2] || !rt->mrs[h].mr) MWC_SKIP();
  if ((rc = ibv_dereg_mr(rt->mrs[h].mr))) MWC_RETURN(mwc_fail(rc));
  rt->mrs[h].mr = NULL;
  MWC_RETURN(mwc_with("OK", NULL));
}
/* rdma_dereg_mr is ibv_dereg_mr with its error in errno. */
const char *mwc_rdma_dereg_mr(struct mwc_rt *rt, unsigned h) { return mwc_dereg_mr(rt, h); }

const char *mwc_rereg_mr(struct mwc_rt *rt, unsigned h, unsigned flags, unsigned pd, struct mwc_addr addr,
                         uint64_t len, unsigned access) {
  struct mwc_mr *m;
  uint64_t va;
  int zb;
  if (h >= rt->caps[2] || !rt->mrs[h].mr) MWC_SKIP();
  m = &rt->mrs[h];
  va = mwc_resolve(rt, addr);
  errno = 0;
  if (ibv_rereg_mr(m->mr, (int)flags, pd < rt->caps[1] ? rt->pds[pd] : NULL, (void *)(uintptr_t)va, len,
                   (int)mwc_verbs_access(access, 1)))
    MWC_RETURN(mwc_fail(errno ? errno : EINVAL));
  /* As mwcheck's iova_after_rereg (refmodel/layout.hpp): a dereg then a reg
   * with what the flags change, so the iova is 0 exactly when the access
   * left is ZERO_BASED (a zero-based MR's iova is 0; no buffer is at 0). */
  zb = (flags & IBV_REREG_MR_CHANGE_ACCESS) ? (access & IBV_ACCESS_ZERO_BASED) != 0 : m->iova == 0;
  if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) {
    m->va = va;
    m->len = len;
  }
  m->iova = zb ? 0 : m->va;
  MWC_RETURN(mwc_with("OK", NULL));
}

const char *mwc_alloc_mw(struct mwc_rt *rt, unsigned h, unsigned pd, uint64_t type) {
  struct ibv_mw *mw;
  if (pd >= rt->caps[1] || !rt->pds[pd] || h >= rt->caps[3] || rt->mws[h].mw) MWC_SKIP();
  mw = ibv_alloc_mw(rt->pds[pd], (enum ibv_mw_type)type);
  if (!mw) MWC_RETURN(mwc_fail(errno));
  memset(&rt->mws[h], 0, sizeof rt->mws[h]);
  rt->mws[h].mw = mw;
  rt->mws[h].alloc_byte = (uint8_t)mw->rkey;
  rt->mws[h].cur = rt->mws[h].prev = mw->rkey;
  MWC_RETURN(mwc_with("OK", NULL));
}

const char *mwc_dealloc_mw(struct mwc_rt *rt, unsigned h) {
  int rc;
  if (h >= rt->caps[3] || !rt->mws[h].mw) MWC_SKIP();
  if ((rc = ibv_dealloc_mw(rt->mws[h].mw))) MWC_RETURN(mwc_fail(rc));
  rt->mws[h].mw = NULL;
  rt->mws[h].bound = 0;
  MWC_RETURN(mwc_with("OK", NULL));
}

/* ---- queue pairs --------------------------------------------------------------- */

static int mwc_modify(struct mwc_rt *rt, struct ibv_qp *qp, int from, int to, unsigned type, uint32_t dest_qpn) {
  struct ibv_qp_attr at;
  int mask = IBV_QP_STATE;
  const int rc = type == IBV_QPT_RC, connected = type == IBV_QPT_RC || type == IBV_QPT_UC;
  /* Which attributes the transition carries (adapters/verbs/mapping.cpp). */
  const int init = to == IBV_QPS_INIT && (from == IBV_QPS_RESET || from == IBV_QPS_INIT);
  const int connect = from == IBV_QPS_INIT && to == IBV_QPS_RTR && connected;
  const int send = from == IBV_QPS_RTR && to == IBV_QPS_RTS;
  memset(&at, 0, sizeof at);
  at.qp_state = (enum ibv_qp_state)to;
  if (init) {
    at.pkey_index = 0;
    at.port_num = rt->port;
    mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    if (type == IBV_QPT_UD) {
      at.qkey = 0x11111111;
      mask |= IBV_QP_QKEY;
    } else {
      at.qp_access_flags =
          IBV_ACCESS_REMOTE_WRITE | (rc ? IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC : 0);
      mask |= IBV_QP_ACCESS_FLAGS;
    }
  }
  if (connect) {
    at.path_mtu = IBV_MTU_1024;
    at.dest_qp_num = dest_qpn;
    at.rq_psn = 0;
    at.ah_attr.is_global = 1;
    at.ah_attr.grh.dgid = rt->gid;
    at.ah_attr.grh.sgid_index = (uint8_t)rt->gid_index;
    at.ah_attr.grh.hop_limit = 1;
    at.ah_attr.port_num = rt->port;
    mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (rc) {
      at.max_dest_rd_atomic = 1;
      at.min_rnr_timer = 1;
      mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
  }
  if (send) {
    at.sq_psn = 0;
    mask |= IBV_QP_SQ_PSN;
    if (rc) {
      at.timeout = MWC_ACK_TIMEOUT;
      at.retry_cnt = MWC_RETRY;
      at.rnr_retry = MWC_RETRY;
      at.max_rd_atomic = 1;
      mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
  }
  return ibv_modify_qp(qp, &at, mask);
}

static void mwc_post_recv(struct mwc_rt *rt, struct ibv_qp *qp, int with_buffer, int *count) {
  struct ibv_sge sge = {(uint64_t)(uintptr_t)rt->scratch, MWC_INLINE, rt->scratch_mr->lkey};
  struct ibv_recv_wr wr, *bad = NULL;
  memset(&wr, 0, sizeof wr);
  wr.wr_id = rt->next_wr++;
  wr.sg_list = with_buffer ? &sge : NULL;
  wr.num_sge = with_buffer ? 1 : 0;
  if (ibv_post_recv(qp, &wr, &bad) == 0) ++*count;
}

/* Brings the peer back to RTS, connected to q (after a reset or an error). */
static void mwc_reconnect_peer(struct mwc_rt *rt, struct mwc_qp *q) {
  static const int path[] = {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS};
  struct ibv_wc wc[16];
  int i;
  while (ibv_poll_cq(q->pcq, 16, wc) > 0) {
  }
  mwc_modify(rt, q->peer, IBV_QPS_RTS, IBV_QPS_RESET, q->type, 0);
  q->peer_recvs = 0;
  for (i = 0; i + 1 < 4; ++i)
    if (mwc_modify(rt, q->peer, path[i], path[i + 1], q->type, q->qp->qp_num)) return;
  mwc_post_recv(rt, q->peer, 1, &q->peer_recvs);
}

static void mwc_free_qp(struct mwc_qp *q) {
  if (q->qp) ibv_destroy_qp(q->qp);
  if (q->peer) ibv_destroy_qp(q->peer);
  if (q->scq) ibv_destroy_cq(q->scq);
  if (q->rcq) ibv_destroy_cq(q->rcq);
  if (q->pcq) ibv_destroy_cq(q->pcq);
  free(q->stash);
  free(q->posted);
  memset(q, 0, sizeof *q);
}

const char *mwc_create_qp(struct mwc_rt *rt, unsigned h, unsigned pd, unsigned type, uint64_t depth,
                          uint64_t sig_all, unsigned state) {
  static const int path[] = {IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD};
  struct mwc_qp q;
  struct ibv_qp_init_attr ia, pa;
  int cq_errno, e, steps = 0, i, rc = 0;
  if (pd >= rt->caps[1] || !rt->pds[pd] || h >= rt->caps[4] || rt->qps[h].qp) MWC_SKIP();
  memset(&q, 0, sizeof q);
  q.type = type;
  q.pd = pd;
  q.sig_all = sig_all != 0;
  q.scq = ibv_create_cq(rt->ctx, MWC_CQ_DEPTH, NULL, NULL, 0);
  q.rcq = ibv_create_cq(rt->ctx, MWC_CQ_DEPTH, NULL, NULL, 0);
  q.pcq = ibv_create_cq(rt->ctx, MWC_CQ_DEPTH, NULL, NULL, 0);
  cq_errno = errno;
  if (!q.scq || !q.rcq || !q.pcq) {
    mwc_free_qp(&q);
    MWC_RETURN(mwc_fail(cq_errno));
  }
  memset(&ia, 0, sizeof ia);
  ia.send_cq = q.scq;
  ia.recv_cq = q.rcq;
  ia.cap.max_send_wr = (uint32_t)depth;
  ia.cap.max_recv_wr = 8;
  ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
  ia.cap.max_inline_data = MWC_INLINE;
  ia.qp_type = (enum ibv_qp_type)type;
  ia.sq_sig_all = q.sig_all;
  q.qp = ibv_create_qp(rt->pds[pd], &ia);
  if (!q.qp) {
    e = errno;
    mwc_free_qp(&q);
    MWC_RETURN(mwc_fail(e));
  }
  pa = ia;
  pa.send_cq = pa.recv_cq = q.pcq;
  pa.cap.max_send_wr = 16;
  pa.sq_sig_all = 1;
  q.peer = ibv_create_qp(rt->peer_pd, &pa);
  if (!q.peer) {
    e = errno;
    mwc_free_qp(&q);
    MWC_RETURN(mwc_fail(e));
  }
  mwc_reconnect_peer(rt, &q);
  /* create_qp's state is reached the way a consumer reaches it: by the
   * transitions from RESET. If one fails, the QP is not made at all. */
  if (state == IBV_QPS_ERR || state == IBV_QPS_SQE)
    rc = mwc_modify(rt, q.qp, IBV_QPS_RESET, (int)state, q.type, 0);
  else
    while (steps < 4 && path[steps] != (int)state) ++steps;
  for (i = 0; i < steps && !rc; ++i) rc = mwc_modify(rt, q.qp, path[i], path[i + 1], q.type, q.peer->qp_num);
  if (rc) {
    mwc_free_qp(&q);
    MWC_RETURN(mwc_fail(rc));
  }
  q.state = (int)state;
  rt->qps[h] = q;
  MWC_RETURN(mwc_with("OK", NULL));
}

const char *mwc_modify_qp(struct mwc_rt *rt, unsigned h, unsigned state) {
  struct mwc_qp *q;
  struct ibv_qp_attr at;
  struct ibv_qp_init_attr ia;
  int rc;
  if (h >= rt->caps[4] || !rt->qps[h].qp) MWC_SKIP();
  q = &rt->qps[h];
  /* The device's own view of the state: errors move QPs without asking. */
  if (ibv_query_qp(q->qp, &at, IBV_QP_STATE, &ia) == 0) q->state = at.qp_state;
  if ((rc = mwc_modify(rt, q->qp, q->state, (int)state, q->type, q->peer->qp_num))) MWC_RETURN(mwc_fail(rc));
  q->state = (int)state;
  if (state == IBV_QPS_RESET) q->recvs = 0;
  if (state == IBV_QPS_RTR) mwc_reconnect_peer(rt, q);
  MWC_RETURN(mwc_with("OK", NULL));
}

const char *mwc_destroy_qp(struct mwc_rt *rt, unsigned h) {
  int rc;
  if (h >= rt->caps[4] || !rt->qps[h].qp) MWC_SKIP();
  if ((rc = ibv_destroy_qp(rt->qps[h].qp))) MWC_RETURN(mwc_fail(rc));
  rt->qps[h].qp = NULL;
  mwc_free_qp(&rt->qps[h]);
  MWC_RETURN(mwc_with("OK", NULL));
}

/* ---- completions ------------------------------------------------------------------ */

static void mwc_stash_push(struct mwc_qp *q, struct mwc_wc w) {
  if (q->stash_head + q->stash_n == q->stash_cap) {
    if (q->stash_head > 0) {
      memmove(q->stash, q->stash + q->stash_head, q->stash_n * sizeof *q->stash);
      q->stash_head = 0;
    } else {
      size_t cap = q->stash_cap ? 2 * q->stash_cap : 16;
      struct mwc_wc *p = realloc(q->stash, cap * sizeof *p);
      if (!p) return;
      q->stash = p;
      q->stash_cap = cap;
    }
  }
  q->stash[q->stash_head + q->stash_n++] = w;
}

static void mwc_posted_push(struct mwc_qp *q, uint64_t wr_id, const char *op, int signaled) {
  if (q->posted_n == q->posted_cap) {
    size_t cap = q->posted_cap ? 2 * q->posted_cap : 16;
    struct mwc_posted *p = realloc(q->posted, cap * sizeof *p);
    if (!p) return;
    q->posted = p;
    q->posted_cap = cap;
  }
  q->posted[q->posted_n].wr_id = wr_id;
  q->posted[q->posted_n].op = op;
  q->posted[q->posted_n].signaled = signaled;
  ++q->posted_n;
}

/* Reads every completion of q's queues that has arrived, into the stash. */
static void mwc_drain(struct mwc_qp *q) {
  struct ibv_wc wc[16];
  int n, i;
  while ((n = ibv_poll_cq(q->scq, 16, wc)) > 0) {
    for (i = 0; i < n; ++i) {
      struct mwc_wc w = {wc[i].wr_id, wc[i].status, mwc_wc_opcode_name(wc[i].opcode)};
      size_t j, k = 0;
      /* Send queues complete in order: this one ends every earlier request.
       * An error completion's opcode is undefined in verbs: the posting says. */
      for (j = 0; j < q->posted_n; ++j)
        if (q->posted[j].wr_id == wc[i].wr_id) w.op = q->posted[j].op;
      mwc_stash_push(q, w);
      for (j = 0; j < q->posted_n; ++j)
        if (q->posted[j].wr_id > wc[i].wr_id) q->posted[k++] = q->posted[j];
      q->posted_n = k;
    }
  }
  while ((n = ibv_poll_cq(q->rcq, 16, wc)) > 0) q->recvs -= n;
}

/* Drains q until `wr_id` completes or `ms` pass. Returns whether it did,
 * with its status in *st. */
static int mwc_wait_for(struct mwc_qp *q, uint64_t wr_id, int ms, int *st) {
  const uint64_t end = mwc_now_ms() + (uint64_t)ms;
  for (;;) {
    size_t i;
    mwc_drain(q);
    for (i = 0; i < q->stash_n; ++i)
      if (q->stash[q->stash_head + i].wr_id == wr_id) {
        if (st) *st = q->stash[q->stash_head + i].status;
        return 1;
      }
    if (mwc_now_ms() >= end) return 0;
    mwc_pause();
  }
}

/* Posts a work request on a trace QP and waits until it has executed.
 * Returns the post's outcome; *status gets its completion when one came. */
static struct mwc_outcome mwc_post(struct mwc_rt *rt, struct mwc_qp *q, struct ibv_send_wr *wr, const char *op,
                                   unsigned flags, int *status) {
  struct ibv_send_wr *bad = NULL;
  int rc, signaled, st = -1;
  wr->wr_id = rt->next_wr++;
  wr->send_flags |= flags & (IBV_SEND_SIGNALED | IBV_SEND_FENCE);
  if ((rc = ibv_post_send(q->qp, wr, &bad))) return mwc_fail(rc);
  signaled = q->sig_all || (flags & IBV_SEND_SIGNALED);
  mwc_posted_push(q, wr->wr_id, op, signaled);
  /* A signaled request is waited for; an unsignaled one (or one a QP in SQD
   * holds) only shows an error. */
  if (mwc_wait_for(q, wr->wr_id, signaled && q->state != IBV_QPS_SQD ? rt->op_timeout_ms : rt->settle_ms, &st) &&
      status)
    *status = st;
  return mwc_with("OK", NULL);
}

const char *mwc_poll_cq(struct mwc_rt *rt, unsigned qp) {
  struct mwc_qp *q;
  struct mwc_wc w;
  struct mwc_outcome o;
  int pending = 0;
  size_t i;
  uint64_t end;
  if (qp >= rt->caps[4] || !rt->qps[qp].qp) MWC_SKIP();
  q = &rt->qps[qp];
  mwc_drain(q);
  /* A QP in SQD holds the completions of what was posted there: none is
   * due, so an empty queue is EMPTY, not a completion that never came. */
  for (i = 0; i < q->posted_n && q->state != IBV_QPS_SQD; ++i) pending |= q->posted[i].signaled;
  end = mwc_now_ms() + (uint64_t)(pending ? rt->op_timeout_ms : rt->settle_ms);
  while (q->stash_n == 0 && mwc_now_ms() < end) {
    mwc_pause();
    mwc_drain(q);
  }
  if (q->stash_n == 0) {
    if (!pending) MWC_RETURN(mwc_with("EMPTY", NULL));
    q->posted_n = 0; /* reported once; later polls say EMPTY */
    MWC_RETURN(mwc_with("TIMEOUT", NULL));
  }
  w = q->stash[q->stash_head];
  ++q->stash_head;
  --q->stash_n;
  o = mwc_with("OK", mwc_wc_status_name(w.status));
  o.wc_op = w.op;
  MWC_RETURN(o);
}

/* ---- binds and invalidation ------------------------------------------------------------ */

static struct mwc_outcome mwc_bind(struct mwc_rt *rt, unsigned qp, unsigned mwh, unsigned mr, struct mwc_addr addr,
                                   uint64_t len, unsigned access, unsigned flags, const struct mwc_key *key) {
  struct mwc_qp *q;
  struct mwc_mw *w;
  struct ibv_mw_bind_info info;
  struct mwc_outcome o;
  int st = IBV_WC_SUCCESS;
  uint32_t before;
  if (qp >= rt->caps[4] || !rt->qps[qp].qp || mwh >= rt->caps[3] || !rt->mws[mwh].mw ||
      (mr != MWC_NONE && (mr >= rt->caps[2] || !rt->mrs[mr].mr)))
    return mwc_with("SKIP", NULL);
  q = &rt->qps[qp];
  w = &rt->mws[mwh];
  memset(&info, 0, sizeof info);
  info.mr = mr == MWC_NONE ? NULL : rt->mrs[mr].mr;
  info.addr = mwc_resolve(rt, addr);
  info.length = len;
  info.mw_access_flags = mwc_verbs_access(access, 0);
  before = w->cur;
  if (!key) {
    /* ibv_bind_mw posts the request itself and updates mw->rkey. */
    struct ibv_mw_bind mb;
    int rc;
    memset(&mb, 0, sizeof mb);
    mb.wr_id = rt->next_wr++;
    mb.send_flags = flags & (IBV_SEND_SIGNALED | IBV_SEND_FENCE);
    mb.bind_info = info;
    rc = ibv_bind_mw(q->qp, w->mw, &mb);
    w->cur = w->mw->rkey;
    if (rc) {
      o = mwc_fail(rc);
    } else {
      const int signaled = q->sig_all || (flags & IBV_SEND_SIGNALED);
      mwc_posted_push(q, mb.wr_id, "IBV_WC_BIND_MW", signaled);
      mwc_wait_for(q, mb.wr_id, signaled ? rt->op_timeout_ms : rt->settle_ms, &st);
      o = mwc_with("OK", NULL);
    }
  } else {
    struct ibv_send_wr wr;
    const uint8_t b = (uint8_t)(key->abs ? w->alloc_byte + key->v : w->cur + key->v);
    memset(&wr, 0, sizeof wr);
    wr.opcode = IBV_WR_BIND_MW;
    wr.bind_mw.mw = w->mw;
    wr.bind_mw.rkey = mwc_with_key_byte(w->cur, b);
    wr.bind_mw.bind_info = info;
    o = mwc_post(rt, q, &wr, "IBV_WC_BIND_MW", flags, &st);
    /* The consumer's copy is the window's own rkey field, as ibv_bind_mw
     * keeps it: the provider names the window by it in the next bind. */
    if (strcmp(o.ret, "OK") == 0) w->cur = w->mw->rkey = wr.bind_mw.rkey;
  }
  if (w->cur != before) w->prev = before;
  if (strcmp(o.ret, "OK") == 0 && st == IBV_WC_SUCCESS) {
    o.key = mwc_key_outcome(w->cur, w->alloc_byte);
    w->bound = len != 0;
    w->addr = info.addr;
    w->len = len;
    w->zero_based = (access & IBV_ACCESS_ZERO_BASED) != 0;
  }
  return o;
}

const char *mwc_bind_mw(struct mwc_rt *rt, unsigned qp, unsigned mw, unsigned mr, struct mwc_addr addr,
                        uint64_t len, unsigned access, unsigned flags) {
  MWC_RETURN(mwc_bind(rt, qp, mw, mr, addr, len, access, flags, NULL));
}
const char *mwc_wr_bind_mw(struct mwc_rt *rt, unsigned qp, unsigned mw, unsigned mr, struct mwc_addr addr,
                           uint64_t len, unsigned access, struct mwc_key key, unsigned flags) {
  MWC_RETURN(mwc_bind(rt, qp, mw, mr, addr, len, access, flags, &key));
}
/* DET's det_bind is not in libibverbs. */
const char *mwc_det_bind(struct mwc_rt *rt, unsigned qp, unsigned mw, unsigned mr, struct mwc_addr addr,
                         uint64_t len, unsigned access, unsigned flags) {
  (void)qp, (void)mw, (void)mr, (void)addr, (void)len, (void)access, (void)flags;
  MWC_RETURN(mwc_with("UNSUPPORTED", NULL));
}

static void mwc_unbind_rkey(struct mwc_rt *rt, uint32_t rkey) {
  unsigned i;
  for (i = 0; i < rt->caps[3]; ++i)
    if (rt->mws[i].mw && rt->mws[i].cur == rkey) rt->mws[i].bound = 0;
}

const char *mwc_wr_local_inv(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey, unsigned flags) {
  struct ibv_send_wr wr;
  struct mwc_outcome o;
  int st = -1;
  if (qp >= rt->caps[4] || !rt->qps[qp].qp) MWC_SKIP();
  memset(&wr, 0, sizeof wr);
  wr.opcode = IBV_WR_LOCAL_INV;
  wr.invalidate_rkey = mwc_resolve_rkey(rt, rkey);
  o = mwc_post(rt, &rt->qps[qp], &wr, "IBV_WC_LOCAL_INV", flags, &st);
  if (st == IBV_WC_SUCCESS) mwc_unbind_rkey(rt, wr.invalidate_rkey);
  MWC_RETURN(o);
}

/* Takes the peer's completions: counts its receives that completed, and
   returns 1 with the status of its request `wr_id` once that completes
   (want: 1; 0 takes receives only). Receives are its only other news: each
   of its own requests was waited for, and one that timed out is nobody's
   now. */
static int mwc_take_peer_completions(struct mwc_qp *q, int want, uint64_t wr_id, int *st) {
  struct ibv_wc wc[16];
  int n, i;
  while ((n = ibv_poll_cq(q->pcq, 16, wc)) > 0)
    for (i = 0; i < n; ++i) {
      if (wc[i].opcode & IBV_WC_RECV) {
        --q->peer_recvs;
      } else if (want && wc[i].wr_id == wr_id) {
        *st = wc[i].status;
        return 1;
      }
    }
  return 0;
}

const char *mwc_wr_send(struct mwc_rt *rt, unsigned qp, uint64_t len, unsigned flags) {
  struct mwc_qp *q;
  uint8_t data[MWC_INLINE];
  struct ibv_sge sge;
  struct ibv_send_wr wr;
  int i;
  if (qp >= rt->caps[4] || !rt->qps[qp].qp) MWC_SKIP();
  if (len > MWC_INLINE) MWC_RETURN(mwc_with("UNSUPPORTED", NULL)); /* only inline sends */
  q = &rt->qps[qp];
  /* The peer takes every send, as mwcheck's session has it: its used
     receives are reaped first (else a second send finds none and ends
     IBV_WC_RNR_RETRY_EXC_ERR), and two are kept posted, one for a receive
     whose completion is still on its way. */
  mwc_take_peer_completions(q, 0, 0, NULL);
  for (i = 0; i < 2 && q->peer_recvs < 2; ++i) mwc_post_recv(rt, q->peer, 1, &q->peer_recvs);
  memset(data, 0, sizeof data);
  sge.addr = (uint64_t)(uintptr_t)data;
  sge.length = (uint32_t)len;
  sge.lkey = 0;
  memset(&wr, 0, sizeof wr);
  wr.opcode = IBV_WR_SEND;
  wr.sg_list = len ? &sge : NULL;
  wr.num_sge = len ? 1 : 0;
  wr.send_flags = len ? IBV_SEND_INLINE : 0;
  MWC_RETURN(mwc_post(rt, q, &wr, "IBV_WC_SEND", flags, NULL));
}

/* ---- the peer's requests ---------------------------------------------------------- */

/* Waits for the peer's completion of `wr_id`; 0 on timeout. */
static int mwc_wait_peer(struct mwc_rt *rt, struct mwc_qp *q, uint64_t wr_id, int *st) {
  const uint64_t end = mwc_now_ms() + (uint64_t)rt->op_timeout_ms;
  for (;;) {
    if (mwc_take_peer_completions(q, 1, wr_id, st)) return 1;
    if (mwc_now_ms() >= end) return 0;
    mwc_pause();
  }
}

static struct mwc_outcome mwc_remote(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey_ref,
                                     struct mwc_addr addr_ref, uint64_t len, enum ibv_wr_opcode opcode, uint64_t a0,
                                     uint64_t a1) {
  struct mwc_qp *q;
  uint32_t rkey;
  uint64_t raddr, i;
  int atomic, rc, st = -1, ok = 1;
  struct ibv_sge sge;
  struct ibv_send_wr wr, *bad = NULL;
  if (qp >= rt->caps[4] || !rt->qps[qp].qp) return mwc_with("SKIP", NULL);
  if (len > MWC_SCRATCH) return mwc_with("UNSUPPORTED", NULL);
  q = &rt->qps[qp];
  rkey = mwc_resolve_rkey(rt, rkey_ref);
  raddr = mwc_resolve(rt, addr_ref);
  atomic = opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || opcode == IBV_WR_ATOMIC_CMP_AND_SWP;
  for (i = 0; i < len; ++i) rt->scratch[i] = opcode == IBV_WR_RDMA_WRITE ? mwc_write_byte(rt->op_index, i) : 0;
  sge.addr = (uint64_t)(uintptr_t)rt->scratch;
  sge.length = (uint32_t)len;
  sge.lkey = rt->scratch_mr->lkey;
  memset(&wr, 0, sizeof wr);
  wr.wr_id = rt->next_wr++;
  wr.opcode = opcode;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = len ? &sge : NULL;
  wr.num_sge = len ? 1 : 0;
  if (atomic) {
    wr.wr.atomic.remote_addr = raddr;
    wr.wr.atomic.rkey = rkey;
    wr.wr.atomic.compare_add = a0;
    wr.wr.atomic.swap = a1;
  } else {
    wr.wr.rdma.remote_addr = raddr;
    wr.wr.rdma.rkey = rkey;
  }
  if ((rc = ibv_post_send(q->peer, &wr, &bad))) return mwc_fail(rc);
  if (!mwc_wait_peer(rt, q, wr.wr_id, &st)) return mwc_with("TIMEOUT", NULL);
  mwc_drain(q);
  /* The data: what the access should have done to memory, then whether it
   * did. UC has no acknowledgements: its requester succeeds whether or not
   * the responder took the write, so either memory is right there. */
  if (q->type == IBV_QPT_UC && opcode == IBV_WR_RDMA_WRITE && st == IBV_WC_SUCCESS && mwc_data_ok(rt))
    return mwc_with("OK", mwc_wc_status_name(st));
  if (st == IBV_WC_SUCCESS) {
    uint8_t *sh = mwc_shadow_at(rt, mwc_target_of(rt, rkey, raddr), len);
    if (sh && opcode == IBV_WR_RDMA_WRITE) memcpy(sh, rt->scratch, len);
    if (sh && opcode == IBV_WR_RDMA_READ) ok = memcmp(sh, rt->scratch, len) == 0;
    if (sh && atomic) {
      uint64_t old = 0, got = 0, now;
      memcpy(&old, sh, 8);
      memcpy(&got, rt->scratch, 8);
      ok = old == got;
      now = opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ? old + a0 : (old == a0 ? a1 : old);
      memcpy(sh, &now, 8);
    }
  }
  ok = mwc_data_ok(rt) && ok;
  return mwc_with(ok ? "OK" : "CORRUPT", mwc_wc_status_name(st));
}

const char *mwc_peer_write(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey, struct mwc_addr addr, uint64_t len) {
  MWC_RETURN(mwc_remote(rt, qp, rkey, addr, len, IBV_WR_RDMA_WRITE, 0, 0));
}
const char *mwc_peer_read(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey, struct mwc_addr addr, uint64_t len) {
  MWC_RETURN(mwc_remote(rt, qp, rkey, addr, len, IBV_WR_RDMA_READ, 0, 0));
}
const char *mwc_peer_fetch_add(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey, struct mwc_addr addr,
                               uint64_t add) {
  MWC_RETURN(mwc_remote(rt, qp, rkey, addr, 8, IBV_WR_ATOMIC_FETCH_AND_ADD, add, 0));
}
const char *mwc_peer_cmp_swap(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey, struct mwc_addr addr,
                              uint64_t compare, uint64_t swap) {
  MWC_RETURN(mwc_remote(rt, qp, rkey, addr, 8, IBV_WR_ATOMIC_CMP_AND_SWP, compare, swap));
}

const char *mwc_peer_send_inv(struct mwc_rt *rt, unsigned qp, struct mwc_rkey rkey) {
  struct mwc_qp *q;
  struct ibv_send_wr wr, *bad = NULL;
  int rc, st = -1;
  if (qp >= rt->caps[4] || !rt->qps[qp].qp) MWC_SKIP();
  q = &rt->qps[qp];
  mwc_drain(q);
  if (q->recvs <= 0 && q->state != IBV_QPS_RESET && q->state != IBV_QPS_ERR) {
    q->recvs = 0;
    mwc_post_recv(rt, q->qp, 0, &q->recvs);
  }
  memset(&wr, 0, sizeof wr);
  wr.wr_id = rt->next_wr++;
  wr.opcode = IBV_WR_SEND_WITH_INV;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.invalidate_rkey = mwc_resolve_rkey(rt, rkey);
  if ((rc = ibv_post_send(q->peer, &wr, &bad))) MWC_RETURN(mwc_fail(rc));
  if (!mwc_wait_peer(rt, q, wr.wr_id, &st)) MWC_RETURN(mwc_with("TIMEOUT", NULL));
  mwc_drain(q);
  if (st == IBV_WC_SUCCESS) mwc_unbind_rkey(rt, wr.invalidate_rkey);
  MWC_RETURN(mwc_with("OK", mwc_wc_status_name(st)));
}

/* ---- the verdict --------------------------------------------------------------------- */

/* Op `i` starts: prints its trace text first, so that a crash in it is
 * seen in it (and remote writes put bytes that depend on i). */
static void mwc_begin(struct mwc_rt *rt, unsigned i, const char *op) {
  rt->op_index = i + 1;
  printf("[%u] %s\n", i + 1, op);  /* numbered from 1, as mwcheck's reports do */
  fflush(stdout);
  if (rt->op_log) {
    fprintf(rt->op_log, "MWCHECK-OP %u\n", i), fflush(rt->op_log);
    /* Sent, not only queued: a kernel that dies in the op loses what
     * its serial line had yet to send. */
    if (isatty(fileno(rt->op_log))) tcdrain(fileno(rt->op_log));
  }
  atomic_store(&rt->watched_op, i);
  atomic_store(&rt->op_start_ms, mwc_now_ms());
}

/* Prints what op `i` was expected to do and what it did; notes the first
 * op that differed ("*": anything is as expected). A verb that returned
 * only after the op timeout did not finish in time: TIMEOUT, as mwcheck's
 * device session sees it. */
static void mwc_check(struct mwc_rt *rt, unsigned i, const char *expected, const char *seen) {
  const uint64_t took = mwc_now_ms() - atomic_exchange(&rt->op_start_ms, 0);
  char late[64] = "";
  if (took > (uint64_t)rt->op_timeout_ms + 1000 && strcmp(seen, "TIMEOUT") != 0) {
    snprintf(late, sizeof late, " (returned %s after %.1f s)", seen, (double)took / 1000);
    seen = "TIMEOUT";
  }
  const int same = strcmp(expected, "*") == 0 || strcmp(expected, seen) == 0;
  printf("    expected: %s\n    seen:     %s%s%s\n", expected, seen, late, same ? "" : "   <-- differs");
  fflush(stdout);
  if (!same && rt->first_diff < 0) rt->first_diff = (int)i;
}

/* The watchdog: a verb that never returns (the kernel holds the thread)
 * still gets its verdict printed; the process then ends as soon as the
 * kernel lets it. */
static void *mwc_watchdog(void *arg) {
  struct mwc_rt *rt = arg;
  for (;;) {
    usleep(200 * 1000);
    const uint64_t start = atomic_load(&rt->op_start_ms);
    if (!start || mwc_now_ms() - start < (uint64_t)rt->stuck_ms) continue;
    const unsigned i = atomic_load(&rt->watched_op);
    printf("    seen:     TIMEOUT (still inside the verb after %d s)   <-- differs\n", rt->stuck_ms / 1000);
    if (rt->first_diff >= 0)
      printf("%s: OTHER PATH: op %d differed before op %u\n", rt->finding, rt->first_diff + 1, rt->finding_op + 1);
    else if (i == rt->finding_op)
      printf("%s: REPRODUCED at op %u\n", rt->finding, i + 1);
    else
      printf("%s: OTHER PATH: op %u differed before op %u\n", rt->finding, i + 1, rt->finding_op + 1);
    fflush(stdout);
    _exit(rt->first_diff < 0 && i == rt->finding_op ? 1 : 3);
  }
  return NULL;
}

/* Starts the watchdog for the finding `id`, which shows at op `op`. */
static void mwc_watch(struct mwc_rt *rt, const char *id, unsigned op) {
  pthread_t t;
  rt->finding = id;
  rt->finding_op = op;
  if (pthread_create(&t, NULL, mwc_watchdog, rt) == 0) pthread_detach(t);
}

/* Frees the device's objects and returns the exit status: 1 the finding
 * reproduces (op `op` differs, every earlier one as expected), 0 every op
 * as expected, 3 an earlier op already differed. */
static int mwc_verdict(struct mwc_rt *rt, const char *id, unsigned op) {
  int status;
  mwc_close(rt);
  if (rt->first_diff < 0) {
    printf("%s: NOT REPRODUCED: every op as expected (fixed?)\n", id);
    status = 0;
  } else if ((unsigned)rt->first_diff == op) {
    printf("%s: REPRODUCED at op %u\n", id, op + 1);
    status = 1;
  } else {
    printf("%s: OTHER PATH: op %d differed before op %u\n", id, rt->first_diff + 1, op + 1);
    status = 3;
  }
  fflush(stdout);
  return status;
}
