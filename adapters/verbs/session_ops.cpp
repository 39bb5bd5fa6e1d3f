// The handlers of the ops on PDs, MRs and windows: registration, binds,
// invalidation, and sends.
#include "adapters/verbs/session.hpp"

#include <unistd.h>

#include <cerrno>

#include <infiniband/verbs.h>
#include <rdma/rdma_verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "adapters/verbs/session_internal.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/model.hpp"

namespace mwc::verbs {
using namespace session_detail;

namespace {

// Returns the most a registration may pin: pinning more than the memory
// there is calls the OOM killer (SIGKILL), whatever the device. A quarter
// of the physical memory is far beyond any trace's need and safely below.
uint64_t pin_limit() {
  static const uint64_t limit =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE)) / 4;
  return limit;
}

}  // namespace

bool Session::too_big_to_pin(uint64_t va, uint64_t len) const {
  if (len <= pin_limit()) return false;
  for (const Buf& b : bufs_) {
    const uint64_t start = reinterpret_cast<uint64_t>(b.p);
    if (b.live && va >= start && va - start <= b.len && len <= b.len - (va - start)) return true;
  }
  return false;  // memory we did not map: the device refuses it without pinning
}

// ---- PDs, MRs and windows ---------------------------------------------------------

Outcome Session::on_alloc_pd(const args::alloc_pd& a) {
  pds_[a.h].pd = ibv_alloc_pd(ctx_);
  return pds_[a.h].pd ? with(Result::kOK) : fail_errno(errno);
}

Outcome Session::on_dealloc_pd(const args::dealloc_pd& a) {
  if (const int rc = ibv_dealloc_pd(pds_[a.h].pd)) return fail_errno(rc);
  pds_[a.h].pd = nullptr;
  return with(Result::kOK);
}

Outcome Session::reg(uint32_t h, uint32_t pd, const Arg& addr, uint64_t len, uint32_t access) {
  const uint64_t va = book_.resolve(addr);
  if (too_big_to_pin(va, len)) return with(Result::kUNSUPPORTED);
  // Registered at the iova the layout gives (0 for ZERO_BASED).
  ibv_mr* mr = ibv_reg_mr_iova2(pds_[pd].pd, reinterpret_cast<void*>(va), len,
                                layout::mr_iova(access, va), verbs_access(access, true));
  if (!mr) return fail_errno(errno);
  mrs_[h].mr = mr;
  book_.reg(h, mr->rkey, access, va, len);
  return with(Result::kOK);
}

Outcome Session::on_reg_mr(const args::reg_mr& a) { return reg(a.h, a.pd, a.addr, a.len, a.access); }

// librdmacm's rdma_reg_* take the PD from a connection id: give them one
// that carries the trace's PD, and the real inline functions run.
#define MWC_RDMA_REG(fn, i)                                                        \
  Outcome Session::on_##fn(const args::fn& a) {                                    \
    rdma_cm_id id{};                                                               \
    id.pd = pds_[a.pd].pd;                                                         \
    const uint64_t va = book_.resolve(a.addr);                                     \
    if (too_big_to_pin(va, a.len)) return with(Result::kUNSUPPORTED);              \
    ibv_mr* mr = fn(&id, reinterpret_cast<void*>(va), a.len);                      \
    if (!mr) return fail_errno(errno);                                             \
    mrs_[a.h].mr = mr;                                                             \
    book_.reg(a.h, mr->rkey, kRdmaRegAccess[i], va, a.len);                        \
    return with(Result::kOK);                                                      \
  }
MWC_RDMA_REG(rdma_reg_msgs, 0)
MWC_RDMA_REG(rdma_reg_read, 1)
MWC_RDMA_REG(rdma_reg_write, 2)
#undef MWC_RDMA_REG

Outcome Session::dereg(uint32_t h) {
  if (const int rc = ibv_dereg_mr(mrs_[h].mr)) return fail_errno(rc);
  mrs_[h].mr = nullptr;
  book_.dereg(h);
  return with(Result::kOK);
}

Outcome Session::on_dereg_mr(const args::dereg_mr& a) { return dereg(a.h); }

Outcome Session::on_rdma_dereg_mr(const args::rdma_dereg_mr& a) {
  if (rdma_dereg_mr(mrs_[a.h].mr)) return fail_errno(errno);
  mrs_[a.h].mr = nullptr;
  book_.dereg(a.h);
  return with(Result::kOK);
}

Outcome Session::on_rereg_mr(const args::rereg_mr& a) {
  Mr& m = mrs_[a.h];
  ibv_pd* pd = a.pd < pds_.size() ? pds_[a.pd].pd : nullptr;
  const uint64_t va = book_.resolve(a.addr);
  if ((a.flags & IBV_REREG_MR_CHANGE_TRANSLATION) && too_big_to_pin(va, a.len)) return with(Result::kUNSUPPORTED);
  errno = 0;
  if (ibv_rereg_mr(m.mr, static_cast<int>(a.flags), pd, reinterpret_cast<void*>(va), a.len,
                   static_cast<int>(verbs_access(a.access, true))))
    return fail_errno(errno ? errno : EINVAL);
  book_.rereg(a.h, a.flags, a.access, va, a.len);
  return with(Result::kOK);
}

Outcome Session::on_alloc_mw(const args::alloc_mw& a) {
  ibv_mw* mw = ibv_alloc_mw(pds_[a.pd].pd, static_cast<ibv_mw_type>(a.type));
  if (!mw) return fail_errno(errno);
  mws_[a.h].mw = mw;
  book_.alloc_mw(a.h, mw->rkey);
  return with(Result::kOK);
}

Outcome Session::on_dealloc_mw(const args::dealloc_mw& a) {
  if (const int rc = ibv_dealloc_mw(mws_[a.h].mw)) return fail_errno(rc);
  mws_[a.h].mw = nullptr;
  book_.dealloc_mw(a.h);
  return with(Result::kOK);
}

// ---- binds and invalidation ------------------------------------------------------------

Outcome Session::bind(uint32_t qp, uint32_t mw, uint32_t mr, const Arg& addr, uint64_t len,
                      uint32_t access, uint32_t flags, const Arg* key) {
  Qp& q = qps_[qp];
  Mw& w = mws_[mw];
  ibv_mw_bind_info info{};
  info.mr = mr == kNoHandle ? nullptr : mrs_[mr].mr;
  info.addr = book_.resolve(addr);
  info.length = len;
  info.mw_access_flags = verbs_access(access, false);
  WcStatus st = WcStatus::kIBV_WC_SUCCESS;
  Outcome o;
  if (!key) {
    // ibv_bind_mw posts the request itself and updates mw->rkey.
    ibv_mw_bind mb{};
    mb.wr_id = next_wr_++;
    mb.send_flags = flags & (sendf::SIGNALED | sendf::FENCE);
    mb.bind_info = info;
    const int rc = ibv_bind_mw(q.qp, w.mw, &mb);
    book_.set_cur(mw, w.mw->rkey);
    if (rc) {
      o = fail_errno(rc);
    } else {
      const bool signaled = q.sig_all || (flags & sendf::SIGNALED);
      q.posted.push_back({mb.wr_id, WcOpcode::kIBV_WC_BIND_MW, signaled});
      wait_for(q, mb.wr_id, signaled ? o_.op_timeout_ms : o_.settle_ms, &st);
      o = with(Result::kOK);
    }
  } else {
    ibv_send_wr wr{};
    wr.opcode = IBV_WR_BIND_MW;
    wr.bind_mw.mw = w.mw;
    wr.bind_mw.rkey = book_.wr_rkey(mw, *key);
    wr.bind_mw.bind_info = info;
    o = post(q, wr, WcOpcode::kIBV_WC_BIND_MW, flags, &st);
    if (o.ret == Result::kOK) {
      // The consumer's copy is the window's own rkey field, as ibv_bind_mw
      // keeps it: a provider names the window by it in the next bind (rxe
      // refuses a bind whose mw->rkey is not the window's current key).
      w.mw->rkey = wr.bind_mw.rkey;
      book_.set_cur(mw, wr.bind_mw.rkey);
    }
  }
  if (o.ret == Result::kOK && st == WcStatus::kIBV_WC_SUCCESS)
    o.key = book_.bound(mw, mr, info.addr, len, access);
  return o;
}

Outcome Session::on_bind_mw(const args::bind_mw& a) {
  return bind(a.qp, a.mw, a.mr, a.addr, a.len, a.access, a.flags, nullptr);
}
Outcome Session::on_wr_bind_mw(const args::wr_bind_mw& a) {
  return bind(a.qp, a.mw, a.mr, a.addr, a.len, a.access, a.flags, &a.key);
}
Outcome Session::on_det_bind(const args::det_bind&) {
  return with(Result::kUNSUPPORTED);  // DET's verb is not in libibverbs
}

Outcome Session::on_wr_local_inv(const args::wr_local_inv& a) {
  ibv_send_wr wr{};
  wr.opcode = IBV_WR_LOCAL_INV;
  wr.invalidate_rkey = book_.resolve_rkey(a.rkey);
  WcStatus st = WcStatus::kNONE;
  Outcome o = post(qps_[a.qp], wr, WcOpcode::kIBV_WC_LOCAL_INV, a.flags, &st);
  if (st == WcStatus::kIBV_WC_SUCCESS) book_.invalidated(wr.invalidate_rkey);
  return o;
}

Outcome Session::on_wr_send(const args::wr_send& a) {
  if (a.len > kInline) return with(Result::kUNSUPPORTED);  // only inline sends: no lkey to borrow
  Qp& q = qps_[a.qp];
  // The peer takes every send: its used receives are reaped first (else a
  // second send finds none and ends RNR_RETRY_EXC_ERR), and two are kept
  // posted, one for a receive whose completion is still on its way.
  if (o_.fault != Fault::no_completion) {
    reap_peer_recvs(q);
    for (int i = 0; i < 2 && q.peer_recvs < 2; ++i) post_recv(q.peer, true, q.peer_recvs);
  }
  uint8_t data[kInline] = {};
  ibv_sge sge{reinterpret_cast<uint64_t>(data), static_cast<uint32_t>(a.len), 0};
  ibv_send_wr wr{};
  wr.opcode = IBV_WR_SEND;
  wr.sg_list = a.len ? &sge : nullptr;
  wr.num_sge = a.len ? 1 : 0;
  wr.send_flags = a.len ? IBV_SEND_INLINE : 0;
  return post(q, wr, WcOpcode::kIBV_WC_SEND, a.flags, nullptr);
}

}  // namespace mwc::verbs
