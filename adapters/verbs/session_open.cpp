// Opening the device and the session's own objects, closing them, and
// dispatching each op of a trace.
#include "adapters/verbs/session.hpp"

#include <sys/mman.h>
#include <termios.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <infiniband/verbs.h>

#include "adapters/softroce/markers.hpp"
#include "adapters/verbs/mapping.hpp"
#include "adapters/verbs/session_internal.hpp"

namespace mwc::verbs {
using namespace session_detail;

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
  // the host knows where (adapters/softroce/markers.hpp). Drained:
  // a panic loses what the serial line had queued but not sent, and the
  // crash would be put in an earlier op.
  if (console_) {
    std::fprintf(console_, "%.*s%u\n", static_cast<int>(softroce::kOpMarker.size()), softroce::kOpMarker.data(),
                 op_index_ - 1),
        std::fflush(console_);
    tcdrain(fileno(console_));
  }
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

Outcome Session::skipped() const { return with(Result::kSKIP); }

}  // namespace mwc::verbs
