// One trace on a real device through libibverbs, in the calling process.
// (VerbsBackend runs each session in a child process, so that a crash in the
// provider or a call stuck in the kernel ends the child, not mwcheck.)
//
// Each trace QP gets a peer QP of the same type on the same device, in a PD
// of the session's own, connected to it in loopback: the remote side of the
// peer_* ops. Trace buffers are mapped at the very addresses the model gives
// them, so addresses need no translation; rkeys do, and the session's Book
// keeps the consumer's copy of each window's rkey and the one before it.
#pragma once
#include "adapters/device_settings.hpp"
#include "adapters/faults.hpp"
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/verbs/book.hpp"
#include "refmodel/liveness.hpp"
#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/trace.hpp"

struct ibv_context;
struct ibv_pd;
struct ibv_mr;
struct ibv_mw;
struct ibv_qp;
struct ibv_cq;
struct ibv_send_wr;

namespace mwc::verbs {

// Faults a self-test injects to see the harness survive them.
// The faults a self-test injects: adapters/faults.def.
using mwc::Fault;

struct SessionOptions {
  std::string device;         // ibverbs device name; empty: the first device
  int op_timeout_ms = setting::op_timeout_ms.def;  // a completion later than this is TIMEOUT
  int port = setting::port.def;                    // the port the QPs use
  int gid_index = setting::gid_index.def;  // the GID loopback connections address; -1: the first usable
  int settle_ms = kSettleMs;               // how long an unsignaled work request's error may take
  Fault fault = Fault::none;  // injected into this session
};

class Session {
 public:
  // Opens the device. Returns nullptr, with `err` set, when it cannot.
  static std::unique_ptr<Session> open(const SessionOptions& o, std::string& err);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Sizes the session for a trace; call once, before step().
  void begin(const Trace& t);
  // Executes one op on the device. Returns its outcome.
  Outcome step(const Op& op);

  // What slot h of the table of kind K holds (refmodel/liveness.hpp asks it).
  template <HandleKind K>
  Slot slot(uint32_t h) const {
    const auto of = [h](const auto& table, auto held) {
      return h >= table.size() ? Slot::outside : held(table[h]) ? Slot::live : Slot::free;
    };
    if constexpr (K == HandleKind::Buf) return of(bufs_, [](const Buf& b) { return b.live; });
    else if constexpr (K == HandleKind::Pd) return of(pds_, [](const Pd& p) { return p.pd != nullptr; });
    else if constexpr (K == HandleKind::Mr) return of(mrs_, [](const Mr& m) { return m.mr != nullptr; });
    else if constexpr (K == HandleKind::Mw) return of(mws_, [](const Mw& w) { return w.mw != nullptr; });
    else return of(qps_, [](const Qp& q) { return q.qp != nullptr; });
  }
  // Returns the outcome of an op whose handles are not as the op table says.
  Outcome skipped() const;

  // Handlers, one per op (called through run_ready(), so every handle they
  // get is as its use in the op table says).
#define OP(name, bin, kind, summary) Outcome on_##name(const args::name& a);
  MWC_OPS(OP)
#undef OP

 private:
  struct Buf {
    bool live = false;
    uint8_t* p = nullptr;
    uint64_t len = 0;
    std::vector<uint8_t> shadow;  // what the buffer should hold (small buffers)
  };
  struct Pd {
    ibv_pd* pd = nullptr;
  };
  // Returns whether [va, va+len) lies in one of our buffers and is more
  // than pin_limit(): registering it would OOM-kill us, not test the device.
  bool too_big_to_pin(uint64_t va, uint64_t len) const;
  // MRs and windows: the device's objects here, what their names mean in book_.
  struct Mr {
    ibv_mr* mr = nullptr;
  };
  struct Mw {
    ibv_mw* mw = nullptr;
  };
  struct Wc {
    uint64_t wr_id;
    WcStatus st;
    WcOpcode op;
  };
  struct Posted {
    uint64_t wr_id;
    WcOpcode op;
    bool signaled;
  };
  struct Qp {
    ibv_qp* qp = nullptr;
    ibv_cq* scq = nullptr;   // the trace's completions (poll_cq)
    ibv_cq* rcq = nullptr;   // receives (SEND_WITH_INV), drained by the session
    ibv_qp* peer = nullptr;
    ibv_cq* pcq = nullptr;
    QpState state = QpState::kRESET;
    uint32_t type = 0, pd = 0;
    bool sig_all = true;
    int recvs = 0, peer_recvs = 0;  // receives posted and not yet completed
    std::deque<Wc> stash;           // completions read from scq, not yet polled
    std::vector<Posted> posted;     // signaled work requests not yet completed
  };

  explicit Session(const SessionOptions& o) : o_(o) {}
  Outcome reg(uint32_t h, uint32_t pd, const Arg& addr, uint64_t len, uint32_t access);
  Outcome dereg(uint32_t h);
  Outcome bind(uint32_t qp, uint32_t mw, uint32_t mr, const Arg& addr, uint64_t len,
               uint32_t access, uint32_t flags, const Arg* key);
  // Posts a work request on a trace QP and waits until it has executed.
  // Returns the post's outcome; `status` gets its completion when one came.
  Outcome post(Qp& q, ibv_send_wr& wr, WcOpcode op, uint32_t flags, WcStatus* status);
  Outcome remote(uint32_t qp, const Arg& rkey, const Arg& addr, uint64_t len, int opcode,
                 uint64_t a0, uint64_t a1);
  // Reads every completion of q's queues that has arrived, into the stash.
  void drain(Qp& q);
  // Returns the status of q's next receive completion, if one comes within `ms`.
  std::optional<WcStatus> next_recv(Qp& q, int ms);
  // Drains q until `wr_id` completes or `ms` pass; returns its completion.
  bool wait_for(Qp& q, uint64_t wr_id, int ms, WcStatus* st);
  // Takes the completions of the receives the peer used off its queue,
  // counting them off q.peer_recvs.
  void reap_peer_recvs(Qp& q);
  // Waits for the peer's completion of `wr_id`; false on timeout.
  bool wait_peer(Qp& q, uint64_t wr_id, WcStatus& st);
  int modify(ibv_qp* qp, QpState from, QpState to, uint32_t type, uint32_t dest_qpn);
  // Brings the peer back to RTS, connected to q (after a reset or an error).
  void reconnect_peer(Qp& q);
  void post_recv(ibv_qp* qp, bool with_buffer, int& count);
  // Returns whether the data in every checked buffer is what `expect` says.
  bool data_ok();
  uint8_t* shadow_at(uint64_t va, uint64_t len);
  bool injected(Fault f);
  Outcome fail_errno(int e) const;

  SessionOptions o_;
  ibv_context* ctx_ = nullptr;
  ibv_pd* peer_pd_ = nullptr;
  ibv_mr* scratch_mr_ = nullptr;
  std::vector<uint8_t> scratch_;
  uint8_t gid_[16] = {};
  int gid_index_ = 0;
  uint64_t next_wr_ = 1;
  uint32_t op_index_ = 0;
  bool fault_done_ = false;
  std::FILE* console_ = nullptr;  // the guest's console, inside the Soft-RoCE VM
  std::vector<Buf> bufs_;
  std::vector<Pd> pds_;
  std::vector<Mr> mrs_;
  std::vector<Mw> mws_;
  std::vector<Qp> qps_;
  Book book_;
};

}  // namespace mwc::verbs
