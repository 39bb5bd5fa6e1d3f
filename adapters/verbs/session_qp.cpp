// Queue pairs: creating each trace QP with its connected peer, moving them
// through their states, reconnecting the peer, destroying them.
#include "adapters/verbs/session.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <infiniband/verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "adapters/verbs/session_internal.hpp"

namespace mwc::verbs {
using namespace session_detail;
namespace {

constexpr int kCqDepth = 256;
constexpr uint8_t kRetry = 1, kTimeout = 14;  // 4.096 us * 2^14 = 67 ms per try

}  // namespace

int Session::modify(ibv_qp* qp, QpState from, QpState to, uint32_t type, uint32_t dest_qpn) {
  ibv_qp_attr at{};
  int mask = IBV_QP_STATE;
  at.qp_state = static_cast<ibv_qp_state>(to);
  const uint32_t set = transition_attrs(from, to, type);
  const bool rc = type == qpt::RC;
  if (set & kInit) {
    at.pkey_index = 0;
    at.port_num = static_cast<uint8_t>(o_.port);
    mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
    if (type == qpt::UD) {
      at.qkey = 0x11111111;
      mask |= IBV_QP_QKEY;
    } else {
      at.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | (rc ? IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC : 0);
      mask |= IBV_QP_ACCESS_FLAGS;
    }
  }
  if (set & kConnect) {
    at.path_mtu = IBV_MTU_1024;
    at.dest_qp_num = dest_qpn;
    at.rq_psn = 0;
    at.ah_attr.is_global = 1;
    std::memcpy(at.ah_attr.grh.dgid.raw, gid_, 16);
    at.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index_);
    at.ah_attr.grh.hop_limit = 1;
    at.ah_attr.port_num = static_cast<uint8_t>(o_.port);
    mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (rc) {
      at.max_dest_rd_atomic = 1;
      at.min_rnr_timer = 1;
      mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    }
  }
  if (set & kSend) {
    at.sq_psn = 0;
    mask |= IBV_QP_SQ_PSN;
    if (rc) {
      // The fault: no ACK timeout (0: wait forever) and endless RNR retries,
      // while the peer posts no receive: a send never completes.
      const bool forever = o_.fault == Fault::no_completion;
      at.timeout = forever ? 0 : kTimeout;
      at.retry_cnt = kRetry;
      at.rnr_retry = forever ? 7 : kRetry;
      at.max_rd_atomic = 1;
      mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    }
  }
  return ibv_modify_qp(qp, &at, mask);
}

void Session::post_recv(ibv_qp* qp, bool with_buffer, int& count) {
  ibv_sge sge{reinterpret_cast<uint64_t>(scratch_.data()), kInline, scratch_mr_->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = next_wr_++;
  wr.sg_list = with_buffer ? &sge : nullptr;
  wr.num_sge = with_buffer ? 1 : 0;
  ibv_recv_wr* bad = nullptr;
  if (ibv_post_recv(qp, &wr, &bad) == 0) ++count;
}

void Session::reconnect_peer(Qp& q) {
  for (ibv_wc wc[16]; ibv_poll_cq(q.pcq, 16, wc) > 0;) {
  }
  modify(q.peer, QpState::kRTS, QpState::kRESET, q.type, 0);
  q.peer_recvs = 0;
  const QpState path[] = {QpState::kRESET, QpState::kINIT, QpState::kRTR, QpState::kRTS};
  for (int i = 0; i + 1 < 4; ++i)
    if (modify(q.peer, path[i], path[i + 1], q.type, q.qp->qp_num)) return;
  if (o_.fault != Fault::no_completion) post_recv(q.peer, true, q.peer_recvs);
}

Outcome Session::on_create_qp(const args::create_qp& a) {
  Qp q;
  q.type = a.type;
  q.pd = a.pd;
  q.sig_all = a.sig_all != 0;
  q.scq = ibv_create_cq(ctx_, kCqDepth, nullptr, nullptr, 0);
  q.rcq = ibv_create_cq(ctx_, kCqDepth, nullptr, nullptr, 0);
  q.pcq = ibv_create_cq(ctx_, kCqDepth, nullptr, nullptr, 0);
  const int cq_errno = errno;
  const auto undo = [&] {
    if (q.qp) ibv_destroy_qp(q.qp);
    if (q.peer) ibv_destroy_qp(q.peer);
    for (ibv_cq* cq : {q.scq, q.rcq, q.pcq})
      if (cq) ibv_destroy_cq(cq);
  };
  if (!q.scq || !q.rcq || !q.pcq) {
    undo();
    return fail_errno(cq_errno);
  }
  ibv_qp_init_attr ia{};
  ia.send_cq = q.scq;
  ia.recv_cq = q.rcq;
  ia.cap.max_send_wr = static_cast<uint32_t>(a.depth);
  ia.cap.max_recv_wr = 8;
  ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
  ia.cap.max_inline_data = kInline;
  ia.qp_type = static_cast<ibv_qp_type>(a.type);
  ia.sq_sig_all = q.sig_all;
  q.qp = ibv_create_qp(pds_[a.pd].pd, &ia);
  if (!q.qp) {
    const int e = errno;
    undo();
    return fail_errno(e);
  }
  ibv_qp_init_attr pa = ia;
  pa.send_cq = pa.recv_cq = q.pcq;
  pa.cap.max_send_wr = 16;
  pa.sq_sig_all = 1;
  q.peer = ibv_create_qp(peer_pd_, &pa);
  if (!q.peer) {
    const int e = errno;
    undo();
    return fail_errno(e);
  }
  reconnect_peer(q);
  // create_qp's state is reached the way a consumer reaches it: by the
  // transitions from RESET. If one fails, the QP is not made at all.
  const auto to = static_cast<QpState>(a.state);
  const QpState path[] = {QpState::kRESET, QpState::kINIT, QpState::kRTR, QpState::kRTS,
                          QpState::kSQD};
  int steps = 0;
  if (to == QpState::kERR || to == QpState::kSQE) {
    steps = -1;
  } else {
    while (path[steps] != to) ++steps;
  }
  int rc = 0;
  if (steps < 0) rc = modify(q.qp, QpState::kRESET, to, q.type, 0);
  for (int i = 0; i < steps && !rc; ++i) rc = modify(q.qp, path[i], path[i + 1], q.type, q.peer->qp_num);
  if (rc) {
    undo();
    return fail_errno(rc);
  }
  q.state = to;  // (the peer connected above is fresh: no reconnecting it)
  qps_[a.h] = std::move(q);
  return with(Result::kOK);
}

Outcome Session::on_modify_qp(const args::modify_qp& a) {
  Qp& q = qps_[a.h];
  // The device's own view of the state: errors move QPs without asking.
  ibv_qp_attr at{};
  ibv_qp_init_attr ia{};
  if (ibv_query_qp(q.qp, &at, IBV_QP_STATE, &ia) == 0) q.state = static_cast<QpState>(at.qp_state);
  const auto to = static_cast<QpState>(a.state);
  if (const int rc = modify(q.qp, q.state, to, q.type, q.peer->qp_num)) return fail_errno(rc);
  q.state = to;
  if (to == QpState::kRESET) q.recvs = 0;
  if (to == QpState::kRTR) reconnect_peer(q);
  return with(Result::kOK);
}

Outcome Session::on_destroy_qp(const args::destroy_qp& a) {
  Qp& q = qps_[a.h];
  if (const int rc = ibv_destroy_qp(q.qp)) return fail_errno(rc);
  q.qp = nullptr;
  ibv_destroy_qp(q.peer);
  for (ibv_cq* cq : {q.scq, q.rcq, q.pcq}) ibv_destroy_cq(cq);
  q = Qp{};
  return with(Result::kOK);
}

}  // namespace mwc::verbs
