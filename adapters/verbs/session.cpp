#include "adapters/verbs/session.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include <infiniband/verbs.h>
#include <rdma/rdma_verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/model.hpp"
#include "refmodel/rules.hpp"

namespace mwc::verbs {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kScratch = 1u << 20;        // the peer's local buffer
constexpr uint64_t kShadowMax = 1u << 20;    // buffers up to this size get data checks
constexpr uint32_t kInline = 64;             // sends up to this size go inline
constexpr int kCqDepth = 256;
constexpr uint8_t kRetry = 1, kTimeout = 14;  // 4.096 us * 2^14 = 67 ms per try

uint8_t fill_byte(uint64_t va) { return static_cast<uint8_t>((va * 131) >> 3 ^ va); }
uint8_t write_byte(uint32_t op, uint64_t i) { return static_cast<uint8_t>(op * 29 + i * 13 + 0x5a); }
void pause() { std::this_thread::sleep_for(std::chrono::microseconds(100)); }

}  // namespace

std::unique_ptr<Session> Session::open(const SessionOptions& o, std::string& err) {
  std::unique_ptr<Session> s(new Session(o));
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list || n == 0) {
    err = "no RDMA device (ibv_get_device_list found none)";
    if (list) ibv_free_device_list(list);
    return nullptr;
  }
  for (int i = 0; i < n && !s->ctx_; ++i)
    if (o.device.empty() || o.device == ibv_get_device_name(list[i]))
      s->ctx_ = ibv_open_device(list[i]);
  ibv_free_device_list(list);
  if (!s->ctx_) {
    err = "cannot open RDMA device '" + o.device + "': " + std::strerror(errno);
    return nullptr;
  }
  // Loopback connections address the device's own RoCE v2 GID (or, on
  // InfiniBand, its first GID), or the one --gid-index names.
  ibv_port_attr pa{};
  if (ibv_query_port(s->ctx_, static_cast<uint8_t>(o.port), &pa)) {
    err = "ibv_query_port of port " + std::to_string(o.port) + " failed: " + std::strerror(errno);
    return nullptr;
  }
  int best = -1;
  for (int i = 0; i < pa.gid_tbl_len && best < 0; ++i) {
    if (o.gid_index >= 0 && i != o.gid_index) continue;
    ibv_gid_entry e{};
    if (ibv_query_gid_ex(s->ctx_, static_cast<uint32_t>(o.port), static_cast<uint32_t>(i), &e, 0)) continue;
    const bool v4 = e.gid.global.subnet_prefix == 0 &&
                    (e.gid.global.interface_id & 0xffffffffull) == 0xffff0000ull;
    const bool usable = o.gid_index >= 0 ? true
                        : pa.link_layer == IBV_LINK_LAYER_ETHERNET
                            ? v4 && e.gid_type == IBV_GID_TYPE_ROCE_V2
                            : e.gid.global.interface_id != 0;
    if (usable) {
      best = i;
      std::memcpy(s->gid_, e.gid.raw, 16);
    }
  }
  if (best < 0) {
    err = o.gid_index >= 0
              ? "port " + std::to_string(o.port) + " has no valid GID at index " + std::to_string(o.gid_index)
              : "the device has no usable GID (for RoCE: an IPv4 address on its netdev)";
    return nullptr;
  }
  s->gid_index_ = best;
  if (std::getenv("MWCHECK_GUEST")) s->console_ = std::fopen("/dev/console", "w");
  s->peer_pd_ = ibv_alloc_pd(s->ctx_);
  s->scratch_.assign(kScratch, 0);
  if (s->peer_pd_)
    s->scratch_mr_ = ibv_reg_mr(s->peer_pd_, s->scratch_.data(), kScratch,
                                IBV_ACCESS_LOCAL_WRITE);
  if (!s->scratch_mr_) {
    err = std::string("cannot set up the peer's memory: ") + std::strerror(errno);
    return nullptr;
  }
  return s;
}

Session::~Session() {
  // Windows first: a QP destroyed under a bound type 2 window stalls rxe.
  for (auto& w : mws_)
    if (w.mw) ibv_dealloc_mw(w.mw);
  for (auto& q : qps_) {
    if (q.qp) ibv_destroy_qp(q.qp);
    if (q.peer) ibv_destroy_qp(q.peer);
    for (ibv_cq* cq : {q.scq, q.rcq, q.pcq})
      if (cq) ibv_destroy_cq(cq);
  }
  for (auto& m : mrs_)
    if (m.mr) ibv_dereg_mr(m.mr);
  for (auto& p : pds_)
    if (p.pd) ibv_dealloc_pd(p.pd);
  if (scratch_mr_) ibv_dereg_mr(scratch_mr_);
  if (peer_pd_) ibv_dealloc_pd(peer_pd_);
  for (auto& b : bufs_)
    if (b.live) munmap(b.p, b.len);
  if (ctx_) ibv_close_device(ctx_);
  if (console_) std::fclose(console_);
}

void Session::begin(const Trace& t) {
  bufs_.resize(t.caps[0]);
  pds_.resize(t.caps[1]);
  mrs_.resize(t.caps[2]);
  mws_.resize(t.caps[3]);
  qps_.resize(t.caps[4]);
  book_.begin(t.caps);
}

bool Session::injected(Fault f) {
  if (o_.fault != f || fault_done_) return false;
  fault_done_ = true;
  return true;
}

Outcome Session::step(const Op& op) {
  ++op_index_;
  // In the Soft-RoCE guest, say which op starts: if the kernel dies in it,
  // the host knows where (adapters/softroce/vm.hpp, kOpMarker).
  if (console_) std::fprintf(console_, "MWCHECK-OP %u\n", op_index_ - 1), std::fflush(console_);
  if (injected(Fault::guest_panic)) {
    // Only inside the Soft-RoCE guest, whose init leaves this file.
    if (std::ifstream("/etc/mwcheck-kernel")) std::ofstream("/proc/sysrq-trigger") << 'c';
  }
  // DET's verb is not in libibverbs: unsupported whatever its handles name.
  if (op.code == OpCode::det_bind) return on_det_bind(args::det_bind{op});
  return dispatch_ready(*this, op);
}

Outcome Session::fail_errno(int e) const {
  Outcome o;
  o.ret = result_of_errno(e);
  return o;
}

namespace {
Outcome with(Result r, WcStatus st = WcStatus::kNONE) {
  Outcome o;
  o.ret = r;
  o.wc = st;
  return o;
}
}  // namespace

Outcome Session::skipped() const { return with(Result::kSKIP); }

// ---- data ------------------------------------------------------------------------

uint8_t* Session::shadow_at(uint64_t va, uint64_t len) {
  const uint32_t h = layout::buf_of(va);
  if (h >= bufs_.size()) return nullptr;
  Buf& b = bufs_[h];
  if (!b.live || b.shadow.empty() || !rules::range_within<Concrete>(va, len, layout::buf_va(h), b.len))
    return nullptr;
  return b.shadow.data() + (va - layout::buf_va(h));
}

bool Session::data_ok() {
  bool ok = true;
  for (Buf& b : bufs_) {
    if (!b.live || b.shadow.empty() || std::memcmp(b.p, b.shadow.data(), b.len) == 0) continue;
    ok = false;
    std::memcpy(b.shadow.data(), b.p, b.len);  // report once, then go on from here
  }
  return ok;
}

// ---- resources ---------------------------------------------------------------

Outcome Session::on_buf(const args::buf& a) {
  void* p = mmap(reinterpret_cast<void*>(layout::buf_va(a.h)), a.len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return fail_errno(errno);
  Buf& b = bufs_[a.h];
  b.live = true;
  b.p = static_cast<uint8_t*>(p);
  b.len = a.len;
  if (a.len <= kShadowMax) {
    for (uint64_t i = 0; i < a.len; ++i) b.p[i] = fill_byte(layout::buf_va(a.h) + i);
    b.shadow.assign(b.p, b.p + a.len);
  }
  return with(Result::kOK);
}

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

// ---- queue pairs -----------------------------------------------------------------

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

// ---- completions -----------------------------------------------------------------

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
    if (o.ret == Result::kOK) book_.set_cur(mw, wr.bind_mw.rkey);  // the consumer's copy
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

// ---- the peer's requests -------------------------------------------------------------

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
  drain(q);
  if (st == WcStatus::kIBV_WC_SUCCESS) book_.invalidated(wr.invalidate_rkey);
  return with(Result::kOK, st);
}

}  // namespace mwc::verbs
