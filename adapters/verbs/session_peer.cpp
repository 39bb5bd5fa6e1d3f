// The peer's requests: RDMA write, read and atomics through an rkey, and
// send with invalidate, each checked against the buffers' shadows.
#include "adapters/verbs/session.hpp"

#include <cstring>

#include <infiniband/verbs.h>

#include "adapters/verbs/session_internal.hpp"

namespace mwc::verbs {
using namespace session_detail;
namespace {

// Returns byte i of what op number `op` writes.
uint8_t write_byte(uint32_t op, uint64_t i) { return static_cast<uint8_t>(op * 29 + i * 13 + 0x5a); }

}  // namespace

Outcome Session::remote(uint32_t qp, const Arg& rkey_ref, const Arg& addr_ref, uint64_t len,
                        int opcode, uint64_t a0, uint64_t a1) {
  if (len > kScratch) return with(Result::kUNSUPPORTED);
  Qp& q = qps_[qp];
  const uint32_t rkey = book_.resolve_rkey(rkey_ref);
  const uint64_t raddr = book_.resolve(addr_ref);
  const bool atomic = opcode == IBV_WR_ATOMIC_FETCH_AND_ADD || opcode == IBV_WR_ATOMIC_CMP_AND_SWP;
  for (uint64_t i = 0; i < len; ++i)
    scratch_[i] = opcode == IBV_WR_RDMA_WRITE ? write_byte(op_index_, i) : 0;
  ibv_sge sge{reinterpret_cast<uint64_t>(scratch_.data()), static_cast<uint32_t>(len),
              scratch_mr_->lkey};
  ibv_send_wr wr{};
  wr.wr_id = next_wr_++;
  wr.opcode = static_cast<ibv_wr_opcode>(opcode);
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = len ? &sge : nullptr;
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
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(q.peer, &wr, &bad)) return fail_errno(rc);
  WcStatus st{};
  if (!wait_peer(q, wr.wr_id, st)) return with(Result::kTIMEOUT);
  drain(q);

  // The data: what the access should have done to memory, then whether it
  // did. UC has no acknowledgements: its requester succeeds whether or not
  // the responder took the write, so either memory is right there.
  bool ok = true;
  if (q.type == qpt::UC && opcode == IBV_WR_RDMA_WRITE && st == WcStatus::kIBV_WC_SUCCESS &&
      data_ok())
    return with(Result::kOK, st);
  if (st == WcStatus::kIBV_WC_SUCCESS) {
    uint8_t* sh = shadow_at(book_.target_of(rkey, raddr), len);
    if (sh && opcode == IBV_WR_RDMA_WRITE) std::memcpy(sh, scratch_.data(), len);
    if (sh && opcode == IBV_WR_RDMA_READ) ok = std::memcmp(sh, scratch_.data(), len) == 0;
    if (sh && atomic) {
      uint64_t old = 0, got = 0;
      std::memcpy(&old, sh, 8);
      std::memcpy(&got, scratch_.data(), 8);
      ok = old == got;
      const uint64_t now = opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ? old + a0 : (old == a0 ? a1 : old);
      std::memcpy(sh, &now, 8);
    }
  }
  ok = data_ok() && ok;
  return with(ok ? Result::kOK : Result::kCORRUPT, st);
}

Outcome Session::on_peer_write(const args::peer_write& a) {
  return remote(a.qp, a.rkey, a.addr, a.len, IBV_WR_RDMA_WRITE, 0, 0);
}
Outcome Session::on_peer_read(const args::peer_read& a) {
  return remote(a.qp, a.rkey, a.addr, a.len, IBV_WR_RDMA_READ, 0, 0);
}
Outcome Session::on_peer_fetch_add(const args::peer_fetch_add& a) {
  return remote(a.qp, a.rkey, a.addr, 8, IBV_WR_ATOMIC_FETCH_AND_ADD, a.add, 0);
}
Outcome Session::on_peer_cmp_swap(const args::peer_cmp_swap& a) {
  return remote(a.qp, a.rkey, a.addr, 8, IBV_WR_ATOMIC_CMP_AND_SWP, a.compare, a.swap);
}

Outcome Session::on_peer_send_inv(const args::peer_send_inv& a) {
  Qp& q = qps_[a.qp];
  drain(q);
  const bool can_receive = q.state != QpState::kRESET && q.state != QpState::kERR;
  if (q.recvs <= 0 && can_receive) {
    q.recvs = 0;
    post_recv(q.qp, false, q.recvs);
  }
  ibv_send_wr wr{};
  wr.wr_id = next_wr_++;
  wr.opcode = IBV_WR_SEND_WITH_INV;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.invalidate_rkey = book_.resolve_rkey(a.rkey);
  ibv_send_wr* bad = nullptr;
  if (const int rc = ibv_post_send(q.peer, &wr, &bad)) return fail_errno(rc);
  WcStatus st{};
  if (!wait_peer(q, wr.wr_id, st)) return with(Result::kTIMEOUT);
  // The responder's own account, its receive completion, comes before the
  // acknowledgement: a refusal there under a requester's success is a
  // device that NAKs nothing, whichever check refused.
  const std::optional<WcStatus> responder = can_receive ? next_recv(q, o_.settle_ms) : std::nullopt;
  drain(q);
  Outcome o = with(Result::kOK, st);
  if (st == WcStatus::kIBV_WC_SUCCESS && responder && *responder != WcStatus::kIBV_WC_SUCCESS)
    o.rule = Rule::responder_refused;
  else if (st == WcStatus::kIBV_WC_SUCCESS)
    book_.invalidated(wr.invalidate_rkey);
  return o;
}

}  // namespace mwc::verbs
