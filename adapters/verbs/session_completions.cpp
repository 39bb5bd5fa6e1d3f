// Completions: posting a work request and waiting for it, reading the
// trace QP's and the peer's completion queues, poll_cq.
#include "adapters/verbs/session.hpp"

#include <algorithm>

#include <infiniband/verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "adapters/verbs/session_internal.hpp"

namespace mwc::verbs {
using namespace session_detail;

void Session::drain(Qp& q) {
  ibv_wc wc[16];
  for (int n; (n = ibv_poll_cq(q.scq, 16, wc)) > 0;) {
    for (int i = 0; i < n; ++i) {
      WcOpcode op = wc_opcode_of(wc[i].opcode);
      // Send queues complete in order: this one ends every earlier request.
      // An error completion's opcode is undefined in verbs: the posting says.
      auto it = std::find_if(q.posted.begin(), q.posted.end(),
                             [&](const Posted& p) { return p.wr_id == wc[i].wr_id; });
      if (it != q.posted.end()) op = it->op;
      q.stash.push_back({wc[i].wr_id, wc_status_of(wc[i].status), op});
      std::erase_if(q.posted, [&](const Posted& p) { return p.wr_id <= wc[i].wr_id; });
    }
  }
  for (int n; (n = ibv_poll_cq(q.rcq, 16, wc)) > 0;) q.recvs -= n;
}

std::optional<WcStatus> Session::next_recv(Qp& q, int ms) {
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  ibv_wc wc;
  for (;;) {
    if (ibv_poll_cq(q.rcq, 1, &wc) == 1) {
      --q.recvs;
      return wc_status_of(wc.status);
    }
    if (Clock::now() >= end) return std::nullopt;
    pause();
  }
}

bool Session::wait_for(Qp& q, uint64_t wr_id, int ms, WcStatus* st) {
  const auto end = Clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    drain(q);
    for (const Wc& w : q.stash)
      if (w.wr_id == wr_id) {
        if (st) *st = w.st;
        return true;
      }
    if (Clock::now() >= end) return false;
    pause();
  }
}

Outcome Session::post(Qp& q, ibv_send_wr& wr, WcOpcode op, uint32_t flags, WcStatus* status) {
  static_assert(sendf::SIGNALED == uint32_t{IBV_SEND_SIGNALED} && sendf::FENCE == uint32_t{IBV_SEND_FENCE});
  ibv_send_wr* bad = nullptr;
  if (injected(Fault::provider_crash)) {
    // A wild work request pointer: the provider's post_send reads it.
    ibv_post_send(q.qp, reinterpret_cast<ibv_send_wr*>(uintptr_t{0x10}), &bad);
  }
  wr.wr_id = next_wr_++;
  wr.send_flags |= flags & (sendf::SIGNALED | sendf::FENCE);
  if (const int rc = ibv_post_send(q.qp, &wr, &bad)) return fail_errno(rc);
  const bool signaled = q.sig_all || (flags & sendf::SIGNALED);
  q.posted.push_back({wr.wr_id, op, signaled});
  WcStatus st = WcStatus::kNONE;
  // A signaled request is waited for; an unsignaled one (or one a QP in SQD
  // holds) only shows an error.
  if (wait_for(q, wr.wr_id, signaled && q.state != QpState::kSQD ? o_.op_timeout_ms : o_.settle_ms, &st) &&
      status)
    *status = st;
  return with(Result::kOK);
}

Outcome Session::on_poll_cq(const args::poll_cq& a) {
  Qp& q = qps_[a.qp];
  drain(q);
  // A QP in SQD holds the completions of what was posted there: none is
  // due, so an empty queue is EMPTY, not a completion that never came.
  const bool pending = q.state != QpState::kSQD &&
                       std::any_of(q.posted.begin(), q.posted.end(), [](const Posted& p) { return p.signaled; });
  const auto end = Clock::now() + std::chrono::milliseconds(pending ? o_.op_timeout_ms : o_.settle_ms);
  while (q.stash.empty() && Clock::now() < end) {
    pause();
    drain(q);
  }
  if (q.stash.empty()) {
    if (!pending) return with(Result::kEMPTY);
    q.posted.clear();  // reported once; later polls say EMPTY
    return with(Result::kTIMEOUT);
  }
  const Wc w = q.stash.front();
  q.stash.pop_front();
  Outcome o = with(Result::kOK, w.st);
  o.wc_op = w.op;
  return o;
}

void Session::reap_peer_recvs(Qp& q) {
  // Only receives are the peer's news here: its own requests were each
  // waited for (wait_peer), and one that timed out is nobody's now.
  ibv_wc wc[16];
  for (int n; (n = ibv_poll_cq(q.pcq, 16, wc)) > 0;)
    for (int i = 0; i < n; ++i)
      if (wc[i].opcode & IBV_WC_RECV) --q.peer_recvs;
}

bool Session::wait_peer(Qp& q, uint64_t wr_id, WcStatus& st) {
  const auto end = Clock::now() + std::chrono::milliseconds(o_.op_timeout_ms);
  ibv_wc wc[16];
  for (;;) {
    for (int n; (n = ibv_poll_cq(q.pcq, 16, wc)) > 0;) {
      for (int i = 0; i < n; ++i) {
        if (wc[i].opcode & IBV_WC_RECV) {
          --q.peer_recvs;
          continue;
        }
        if (wc[i].wr_id == wr_id) {
          st = wc_status_of(wc[i].status);
          return true;
        }
      }
    }
    if (Clock::now() >= end) return false;
    pause();
  }
}

}  // namespace mwc::verbs
