/* mw_app: a small, ordinary libibverbs program doing memory-window work on
 * the first RDMA device (or the one named by argv[1]), for recording with
 * `mwcheck record -- mw_app`. It knows nothing of mwcheck.
 *
 * Two RC QPs of one PD are connected to each other through the device's
 * RoCE v2 GID. QP a owns the memory: it binds a type 1 window with
 * ibv_bind_mw and a type 2 window with IBV_WR_BIND_MW, and invalidates the
 * type 2 one with IBV_WR_LOCAL_INV. QP b reads and writes through the
 * windows' rkeys, the last time through the invalidated one. Each step
 * prints what the verbs returned; the exit status is 0 when every step ran.
 *
 *   mw_app [--ex] [DEVICE]
 *
 * --ex: QP a is an extended QP (ibv_create_qp_ex) and posts its type 2
 * bind and its invalidation with ibv_wr_bind_mw and ibv_wr_local_inv.
 */
#include <infiniband/verbs.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct ibv_context *ctx;
static struct ibv_cq *cq_a, *cq_b;
static struct ibv_qp_ex *qpx; /* QP a, with --ex */

static void die(const char *what) {
  fprintf(stderr, "mw_app: %s\n", what);
  exit(1);
}

/* Returns the index of the port's IPv4-mapped RoCE v2 GID (or the first
 * non-zero GID on InfiniBand) and copies the GID to gid. */
static int find_gid(union ibv_gid *gid) {
  struct ibv_port_attr pa;
  if (ibv_query_port(ctx, 1, &pa)) die("ibv_query_port");
  for (int i = 0; i < pa.gid_tbl_len; ++i) {
    struct ibv_gid_entry e;
    if (ibv_query_gid_ex(ctx, 1, (uint32_t)i, &e, 0)) continue;
    int v4 = e.gid.global.subnet_prefix == 0 &&
             (e.gid.global.interface_id & 0xffffffffull) == 0xffff0000ull;
    int ok = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? v4 && e.gid_type == IBV_GID_TYPE_ROCE_V2
                                                      : e.gid.global.interface_id != 0;
    if (ok) {
      *gid = e.gid;
      return i;
    }
  }
  die("no usable GID");
  return -1;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dest, const union ibv_gid *gid, int gid_index) {
  struct ibv_qp_attr at;
  memset(&at, 0, sizeof at);
  at.qp_state = IBV_QPS_INIT;
  at.port_num = 1;
  at.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
  if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
    die("to INIT");
  memset(&at, 0, sizeof at);
  at.qp_state = IBV_QPS_RTR;
  at.path_mtu = IBV_MTU_1024;
  at.dest_qp_num = dest;
  at.ah_attr.is_global = 1;
  at.ah_attr.grh.dgid = *gid;
  at.ah_attr.grh.sgid_index = (uint8_t)gid_index;
  at.ah_attr.grh.hop_limit = 1;
  at.ah_attr.port_num = 1;
  at.max_dest_rd_atomic = 1;
  at.min_rnr_timer = 1;
  if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    die("to RTR");
  memset(&at, 0, sizeof at);
  at.qp_state = IBV_QPS_RTS;
  at.timeout = 10;
  at.retry_cnt = 2;
  at.rnr_retry = 2;
  at.max_rd_atomic = 1;
  if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
    die("to RTS");
}

/* Waits for the next completion on cq; returns its status. */
static enum ibv_wc_status wait_one(struct ibv_cq *cq, const char *what) {
  struct ibv_wc wc;
  for (long spins = 0; spins < 200000000L; ++spins) {
    int n = ibv_poll_cq(cq, 1, &wc);
    if (n < 0) die("ibv_poll_cq");
    if (n == 1) {
      printf("%-28s completion %s\n", what, ibv_wc_status_str(wc.status));
      return wc.status;
    }
  }
  die("no completion");
  return IBV_WC_GENERAL_ERR;
}

/* QP b reads (or writes) len bytes at addr through rkey into its buffer. */
static void remote(struct ibv_qp *b, enum ibv_wr_opcode op, struct ibv_mr *local, uint64_t addr,
                   uint32_t rkey, uint32_t len, const char *what) {
  struct ibv_sge sge = {(uintptr_t)local->addr, len, local->lkey};
  struct ibv_send_wr wr, *bad;
  memset(&wr, 0, sizeof wr);
  wr.wr_id = 100;
  wr.opcode = op;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = addr;
  wr.wr.rdma.rkey = rkey;
  int rc = ibv_post_send(b, &wr, &bad);
  printf("%-28s post %s\n", what, rc ? strerror(rc) : "ok");
  if (!rc) wait_one(cq_b, what);
}

/* Posts QP a's work request: through ibv_post_send, or built with the
 * ibv_wr_* calls on the extended QP. Returns what posting returned. */
static int post_a(struct ibv_qp *a, struct ibv_send_wr *wr) {
  struct ibv_send_wr *bad;
  if (!qpx) return ibv_post_send(a, wr, &bad);
  ibv_wr_start(qpx);
  qpx->wr_id = wr->wr_id;
  qpx->wr_flags = wr->send_flags;
  if (wr->opcode == IBV_WR_BIND_MW)
    ibv_wr_bind_mw(qpx, wr->bind_mw.mw, wr->bind_mw.rkey, &wr->bind_mw.bind_info);
  else
    ibv_wr_local_inv(qpx, wr->invalidate_rkey);
  return ibv_wr_complete(qpx);
}

int main(int argc, char **argv) {
  int n, ex = argc > 1 && !strcmp(argv[1], "--ex");
  const char *want = argc > 1 + ex ? argv[1 + ex] : NULL;
  struct ibv_device **list = ibv_get_device_list(&n);
  if (!list || n == 0) die("no RDMA device");
  struct ibv_device *dev = list[0];
  for (int i = 0; want && i < n; ++i)
    if (!strcmp(ibv_get_device_name(list[i]), want)) dev = list[i];
  ctx = ibv_open_device(dev);
  if (!ctx) die("ibv_open_device");
  union ibv_gid gid;
  int gid_index = find_gid(&gid);

  struct ibv_pd *pd = ibv_alloc_pd(ctx);
  if (!pd) die("ibv_alloc_pd");
  char *mem = aligned_alloc(4096, 8192), *scratch = aligned_alloc(4096, 4096);
  if (!mem || !scratch) die("out of memory");
  memset(mem, 0, 8192);
  struct ibv_mr *mr = ibv_reg_mr(pd, mem, 8192,
                                 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
                                     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
  struct ibv_mr *local = ibv_reg_mr(pd, scratch, 4096, IBV_ACCESS_LOCAL_WRITE);
  if (!mr || !local) die("ibv_reg_mr");
  cq_a = ibv_create_cq(ctx, 16, NULL, NULL, 0);
  cq_b = ibv_create_cq(ctx, 16, NULL, NULL, 0);
  if (!cq_a || !cq_b) die("ibv_create_cq");
  struct ibv_qp_init_attr ia;
  memset(&ia, 0, sizeof ia);
  ia.send_cq = ia.recv_cq = cq_a;
  ia.qp_type = IBV_QPT_RC;
  ia.cap.max_send_wr = 8;
  ia.cap.max_recv_wr = 8;
  ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
  struct ibv_qp *a;
  if (ex) {
    struct ibv_qp_init_attr_ex iax;
    memset(&iax, 0, sizeof iax);
    iax.send_cq = iax.recv_cq = cq_a;
    iax.qp_type = IBV_QPT_RC;
    iax.cap = ia.cap;
    iax.pd = pd;
    iax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    iax.send_ops_flags = IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV;
    a = ibv_create_qp_ex(ctx, &iax);
    if (a) qpx = ibv_qp_to_qp_ex(a);
  } else {
    a = ibv_create_qp(pd, &ia);
  }
  ia.send_cq = ia.recv_cq = cq_b;
  struct ibv_qp *b = ibv_create_qp(pd, &ia);
  if (!a || !b) die("ibv_create_qp");
  connect_qp(a, b->qp_num, &gid, gid_index);
  connect_qp(b, a->qp_num, &gid, gid_index);

  struct ibv_mw *w1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
  struct ibv_mw *w2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
  printf("%-28s %s\n", "ibv_alloc_mw type 1", w1 ? "ok" : strerror(errno));
  printf("%-28s %s\n", "ibv_alloc_mw type 2", w2 ? "ok" : strerror(errno));
  if (!w1 || !w2) die("ibv_alloc_mw");

  /* A type 1 window over the first 4 KiB, readable and writable. */
  struct ibv_mw_bind bind;
  memset(&bind, 0, sizeof bind);
  bind.wr_id = 1;
  bind.send_flags = IBV_SEND_SIGNALED;
  bind.bind_info.mr = mr;
  bind.bind_info.addr = (uintptr_t)mem;
  bind.bind_info.length = 4096;
  bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
  int rc = ibv_bind_mw(a, w1, &bind);
  printf("%-28s %s\n", "ibv_bind_mw type 1", rc ? strerror(rc) : "ok");
  if (rc) die("ibv_bind_mw");
  wait_one(cq_a, "ibv_bind_mw type 1");
  remote(b, IBV_WR_RDMA_WRITE, local, (uintptr_t)mem + 64, w1->rkey, 64, "RDMA write through type 1");
  remote(b, IBV_WR_RDMA_READ, local, (uintptr_t)mem + 4032, w1->rkey, 64, "RDMA read, window's end");

  /* A type 2 window over the second 4 KiB, read only, bound to QP a. */
  struct ibv_send_wr wr;
  memset(&wr, 0, sizeof wr);
  wr.wr_id = 2;
  wr.opcode = IBV_WR_BIND_MW;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.bind_mw.mw = w2;
  wr.bind_mw.rkey = ibv_inc_rkey(w2->rkey);
  wr.bind_mw.bind_info.mr = mr;
  wr.bind_mw.bind_info.addr = (uintptr_t)mem + 4096;
  wr.bind_mw.bind_info.length = 4096;
  wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
  uint32_t rkey2 = wr.bind_mw.rkey;
  rc = post_a(a, &wr);
  printf("%-28s post %s\n", "IBV_WR_BIND_MW type 2", rc ? strerror(rc) : "ok");
  if (rc) die("IBV_WR_BIND_MW");
  wait_one(cq_a, "IBV_WR_BIND_MW type 2");
  remote(b, IBV_WR_RDMA_READ, local, (uintptr_t)mem + 4096, rkey2, 128, "RDMA read through type 2");

  /* Invalidate it; then the rkey must no longer grant anything. */
  memset(&wr, 0, sizeof wr);
  wr.wr_id = 3;
  wr.opcode = IBV_WR_LOCAL_INV;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.invalidate_rkey = rkey2;
  rc = post_a(a, &wr);
  printf("%-28s post %s\n", "IBV_WR_LOCAL_INV", rc ? strerror(rc) : "ok");
  if (rc) die("IBV_WR_LOCAL_INV");
  wait_one(cq_a, "IBV_WR_LOCAL_INV");
  remote(b, IBV_WR_RDMA_READ, local, (uintptr_t)mem + 4096, rkey2, 8, "RDMA read, invalidated");

  /* Tear down: the windows first, as an MR with bound windows may refuse. */
  rc = ibv_dealloc_mw(w2);
  printf("%-28s %s\n", "ibv_dealloc_mw type 2", rc ? strerror(rc) : "ok");
  rc = ibv_dealloc_mw(w1);
  printf("%-28s %s\n", "ibv_dealloc_mw type 1", rc ? strerror(rc) : "ok");
  rc = ibv_dereg_mr(mr);
  printf("%-28s %s\n", "ibv_dereg_mr", rc ? strerror(rc) : "ok");
  if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_dereg_mr(local) || ibv_destroy_cq(cq_a) ||
      ibv_destroy_cq(cq_b) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
    die("teardown");
  ibv_free_device_list(list);
  free(mem);
  free(scratch);
  return 0;
}
