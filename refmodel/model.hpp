// The reference model of the MW/MR state machine under one profile.
//
// Flat tables indexed by handle, sized once per trace by reset(); step()
// executes one op without allocating. Work requests execute in posting
// order when posted; their completions wait in the QP's completion ring
// until poll_cq reads them. Each trace QP has a connected peer (the remote
// side of peer_* ops), whose state the model tracks too.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "refmodel/layout.hpp"
#include "refmodel/liveness.hpp"
#include "refmodel/mutant.hpp"
#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/profile.hpp"
#include "refmodel/rules.hpp"
#include "refmodel/trace.hpp"
#ifdef MWCHECK_BREAKABLE_MODEL
#include "refmodel/broken_rules.hpp"
#endif

namespace mwc {

// Where trace buffers live and which rkey index each object has:
// refmodel/layout.hpp.
inline constexpr int kMaxDepth = 64;
// The access librdmacm's rdma_reg_msgs, rdma_reg_read and rdma_reg_write
// register with (rdma_reg_write(3)), in that order.
inline constexpr uint32_t kRdmaRegAccess[] = {
    acc::LOCAL_WRITE, acc::LOCAL_WRITE | acc::REMOTE_READ, acc::LOCAL_WRITE | acc::REMOTE_WRITE};

// A test build (MWCHECK_BREAKABLE_MODEL) runs the model on a domain whose
// rule templates can be broken (broken_rules.hpp); its own inline namespace
// lets it live beside the real model in one program.
#ifdef MWCHECK_BREAKABLE_MODEL
inline namespace breakable {
#endif
// The domain the model's rule templates run on.
#ifdef MWCHECK_BREAKABLE_MODEL
using ModelDomain = Broken<Concrete>;  // tests only: one rule template may be broken
#else
using ModelDomain = Concrete;
#endif

class Model {
 public:
  // `mutant` switches one real bug on (mutants.def); none costs nothing.
  explicit Model(Profile profile, Mutant mutant = Mutant::none);

  // Clears all state and sizes the tables for a trace's caps. Allocates.
  void reset(const Caps& caps);
  // Grows the tables to at least `caps`, keeping every object: a trace
  // read once (standard input) names more objects piece by piece. A slot
  // past the tables answers as a free one does, so a run grown piece by
  // piece gives the outcomes of one sized for the whole trace at first.
  // Allocates when it grows.
  void grow(const Caps& caps);
  // Executes one op and returns its outcome. Never allocates.
  Outcome step(const Op& op);
  // The same for an op given as its typed view (args::<name>), as the
  // streaming replay decodes it: no uniform Op record in between.
#define OP(name, bin, kind, summary)     \
  Outcome step(const args::name& a) {    \
    consulted_ = 0;                      \
    return run_ready(*this, a);          \
  }
  MWC_OPS(OP)
#undef OP

  const Profile& profile() const { return profile_; }
  Mutant mutant() const { return mutant_; }

  // Invariants a property test or fuzzer checks after every op; returns the
  // first broken one's description, or nullptr. Allocates only while its
  // counting tables grow (the first call after reset to larger caps).
  const char* check_invariants() const;

  // For a fast path that checks remote accesses against its own copies of
  // the tables (replay/fast_path.hpp); the rules stay the templates.
  // What the remote-access rules read of the object an rkey names: `ok`
  // when the key is valid (a live MR of that key; a bound window of that
  // key, its MR still the registration it was bound to), and then the
  // fields the access rules take.
  struct KeyTarget {
    bool ok = false, window = false, zero_based = false;
    uint32_t pd = 0, owner = kNoHandle, access = 0;  // owner: a type 2 window's QP
    uint32_t mr = kNoHandle;                         // the MR (a window's, or itself)
    uint64_t addr = 0, len = 0, mr_iova = 0, mr_len = 0;  // an MR: addr, len = iova, len
  };
  // Returns the target of rkey.
  KeyTarget key_target(uint32_t rkey) const;
  // Returns whether QP qp's responder takes a request needing `right` at
  // all (else it is refused before any key is looked at).
  bool serves(uint32_t qp, uint32_t right) const {
    return qp < qps_.size() && qps_[qp].live && serves(qps_[qp], right);
  }
  // Returns whether QP qp is live.
  bool qp_live(uint32_t qp) const { return qp < caps_[4] && qps_[qp].live; }
  // Returns everything serves() reads of QP qp, packed: two equal values
  // serve the same rights (0 when it is no QP).
  uint32_t responder_word(uint32_t qp) const {
    if (qp >= qps_.size()) return 0;
    const Qp& q = qps_[qp];
    return uint32_t{q.type == qpt::RC} << 25 | uint32_t{q.type == qpt::UC} << 24 |
           uint32_t{q.live} << 16 | uint32_t{q.peer_err} << 8 | static_cast<uint8_t>(q.state);
  }
  // Returns the PD of QP qp (0 when it is no live QP).
  uint32_t qp_pd(uint32_t qp) const { return qp < qps_.size() ? qps_[qp].pd : 0; }
  // The keys of window h: the device's rkey and the consumer's copy and the
  // copy before it (all 0 when h is no live window).
  struct MwKeys {
    uint32_t rkey = 0, cur = 0, prev = 0;
  };
  // Returns window h's keys.
  MwKeys mw_keys(uint32_t h) const {
    if (h >= mws_.size() || !mws_[h].live) return {};
    return {mws_[h].rkey, mws_[h].cur, mws_[h].prev};
  }
  // Returns MR h's rkey (0 when h is no live MR).
  uint32_t mr_rkey(uint32_t h) const {
    return h < mrs_.size() && mrs_[h].live ? mrs_[h].rkey(h) : 0;
  }
  // What one object is now, in the terms the rules compare: for the
  // fuzzer's rule-aware mutator (fuzz/guide.hpp), which picks values at the
  // bounds the state knows and handles by their relation to each other.
  struct ObjectView {
    bool live = false;
    bool bound = false;       // a window with a binding; an MR with windows bound to it
    bool zero_based = false;  // a bound window's ZERO_BASED
    uint8_t type = 0;         // a window's type, a QP's transport (qpt::)
    QpState state = QpState::kRESET;  // a QP's
    uint32_t pd = kNoHandle;     // the PD of an MR, a window or a QP
    uint32_t owner = kNoHandle;  // the QP a bound type 2 window belongs to
    uint32_t mr = kNoHandle;     // the MR a bound window lies in
    uint32_t access = 0;         // an MR's or a bound window's
    uint64_t addr = 0, len = 0;  // the extent: a buffer's, an MR's (iova), a bound window's
  };
  // Returns object h of kind k as it is now (not live past the tables).
  ObjectView object(HandleKind k, uint32_t h) const;
  // Appends the state (every table, field by field) to `out`: equal bytes,
  // equal states. For the trace prover's visited set.
  void append_state(std::string& out) const;
  // Returns the rkey an rkey reference names now.
  uint32_t rkey_of(const Arg& r) const { return resolve_rkey(r); }
  // Returns the address an address reference names now.
  uint64_t addr_of(const Arg& a) const;
  // What the checks of a remote access come to: the first check the state
  // decides against (key, PD, type 2 QP, rights, MR), or remote_ok; then
  // the checks of the request's own values as terms of domain D.
  template <class D>
  struct RemoteCheck {
    Rule fail;
    typename D::Bool in_range;  // remote_range
    typename D::Bool aligned;   // remote_atomic_align (true but for atomics)
  };
  // Returns the checks of `right` on [raddr, raddr+len) through `rkey` by QP
  // qp of PD pd, with the address and length in domain D: the model runs
  // it on Concrete, the trace prover (smt/traces) on Z3 terms, so what is
  // explored is what runs. range_alt() gives the remote_range alternative;
  // it is called only once the range is checked (the model consults the
  // knob then).
  template <class D, class RangeAlt>
  [[gnu::always_inline]] RemoteCheck<D> check_remote(uint32_t qp, uint32_t pd, uint32_t rkey,
                                                     const typename D::U64& raddr,
                                                     const typename D::U64& len, uint32_t right,
                                                     bool atomic, RangeAlt range_alt) const {
    using C = ModelDomain;
    const auto yes = D::lit(0) == D::lit(0);
    // The facts the state's checks read (rules::kRemoteChain), then the
    // first check they fail, in the chain's order.
    const layout::KeyObject k = layout::key_object(rkey);
    rules::RemoteFacts<C> f{false, 0, false, kNoHandle, 0, true, qp, pd, right};
    const Mw* w = nullptr;
    const Mr* m = nullptr;
    if (k.window) {
      w = k.h < mws_.size() && mws_[k.h].live ? &mws_[k.h] : nullptr;
      f.key_ok = w && w->rkey == rkey && w->state == MwState::Bound;
      if (f.key_ok) [[likely]] {
        m = w->mr < mrs_.size() ? &mrs_[w->mr] : nullptr;
        f.pd = w->pd, f.type2 = w->type == 2, f.owner = w->qp, f.access = w->access;
        f.mr_live = m && m->live && m->rkey(w->mr) == w->mr_rkey;
      }
    } else {
      m = k.h < mrs_.size() ? &mrs_[k.h] : nullptr;
      f.key_ok = m && m->live && m->rkey(k.h) == rkey;
      if (f.key_ok) [[likely]]
        f.pd = m->pd, f.access = m->access;
    }
    if (const Rule fail = rules::first_remote_refusal<C>(f); fail != Rule::remote_ok) [[unlikely]]
      return RemoteCheck<D>{fail, yes, yes};
    // Then the request's own values: its range, and an atomic's alignment.
    if (w) {
      const auto zb = D::lit((w->access & acc::ZERO_BASED) != 0) == D::lit(1);
      return {Rule::remote_ok,
              rules::remote_range_ok<D>(raddr, len, zb, D::lit(w->addr), D::lit(w->len),
                                        D::lit(m->iova), D::lit(m->len), range_alt()),
              atomic ? rules::atomic_aligned<D>(rules::translate<D>(raddr, zb, D::lit(w->addr)))
                     : yes};
    }
    // range_sum_wraps's bug: the end compared as a 64-bit sum, which wraps.
    if (mutant_ == Mutant::range_sum_wraps) [[unlikely]]
      return {Rule::remote_ok,
              D::ule(D::lit(m->iova), raddr) && D::ule(raddr + len, D::lit(m->iova) + D::lit(m->len)),
              atomic ? rules::atomic_aligned<D>(raddr) : yes};
    return {Rule::remote_ok, rules::range_within<D>(raddr, len, D::lit(m->iova), D::lit(m->len)),
            atomic ? rules::atomic_aligned<D>(raddr) : yes};
  }
  // Returns the alternative of the misaligned-atomic check (not noted as consulted).
  uint8_t atomic_align_alt() const { return profile_[Knob::atomic_align_check]; }
  // Returns the alternative the remote range check takes (knob or mutant).
  uint8_t remote_range_alt() const {
    return mutant_ == Mutant::range_mr_only ? uint8_t{alt::remote_range::mr_only}
                                            : profile_[Knob::remote_range];
  }

  // What slot h of the table of kind K holds (liveness.hpp asks it).
  template <HandleKind K>
  Slot slot(uint32_t h) const {
    const auto of = [h, n = caps_[static_cast<int>(K)]](const auto& table) {
      return h >= n ? Slot::outside : table[h].live ? Slot::live : Slot::free;
    };
    if constexpr (K == HandleKind::Buf) return of(bufs_);
    else if constexpr (K == HandleKind::Pd) return of(pds_);
    else if constexpr (K == HandleKind::Mr) return of(mrs_);
    else if constexpr (K == HandleKind::Mw) return of(mws_);
    else return of(qps_);
  }
  // Returns the outcome of an op whose handles are not as the op table
  // says (liveness.hpp): skipped.
  [[gnu::cold]] Outcome skipped();

  // Handlers, one per op of the op table (called through run_ready(), so
  // every handle they get is as its use in the op table says).
#define OP(name, bin, kind, summary) [[gnu::noinline]] Outcome on_##name(const args::name& a);
  MWC_OPS(OP)
#undef OP

 private:
  enum class MwState : uint8_t { Unbound, Bound };
  struct Buf { bool live = false; uint64_t len = 0; };
  struct Pd { bool live = false; uint32_t users = 0; };
  struct alignas(64) Mr {  // a cache line each, as a NIC keeps its MR table
    bool live = false;
    uint8_t key = 0, next_key = 0;  // key byte; the next registration takes next_key
    uint32_t pd = 0, access = 0, bound = 0;
    uint64_t va = 0, len = 0, iova = 0;
    uint32_t rkey(uint32_t h) const { return layout::mr_rkey(h, key); }
  };
  struct alignas(64) Mw {  // a cache line each, as a NIC keeps its window table
    bool live = false;
    uint8_t type = 0, alloc_key = 0;
    MwState state = MwState::Unbound;
    uint32_t pd = 0, rkey = 0;  // rkey: the device's
    uint32_t cur = 0, prev = 0;  // the consumer's copy, and the one before
    uint32_t mr = kNoHandle, mr_rkey = 0;  // MR and its rkey when bound
    uint32_t access = 0, qp = kNoHandle;
    uint64_t addr = 0, len = 0;
  };
  struct Cqe {
    WcStatus st;
    WcOpcode op;
    bool signaled;
    bool held;  // posted in SQD: completes once the QP is back in RTS
    Rule rule;  // what poll_cq reports as deciding this completion
  };
  struct Qp {
    bool live = false, peer_err = false, sig_all = true;
    uint8_t depth = 0, head = 0, count = 0;
    uint32_t pd = 0, type = 0;
    QpState state = QpState::kRESET;
    std::array<Cqe, kMaxDepth> ring{};
  };
  enum class BindApi : uint8_t { Verb, Det, Wr };

  // Returns whether live QP q's responder takes a request needing `right`.
  // What it reads, responder_word() packs.
  static bool serves(const Qp& q, uint32_t right) {
    return (q.type == qpt::RC || (q.type == qpt::UC && right == acc::REMOTE_WRITE)) &&
           !q.peer_err && responds(q.state);
  }
  // Returns whether a QP in state s answers its peer's requests.
  static constexpr bool responds(QpState s) {
    return s == QpState::kRTR || s == QpState::kRTS || s == QpState::kSQD;
  }
  // A bind through API `Api` of the fields of view r (args::bind_mw,
  // det_bind or wr_bind_mw), read in place: copied into one request, fields
  // written one by one were read back as wider words, which stalls.
  template <BindApi Api, class View>
  Outcome bind(const View& r);
  Outcome reg(uint32_t h, uint32_t pd, const Arg& addr, uint64_t len, uint32_t access, Rule ok);
  Outcome dereg(uint32_t h);
  // Posting a work request with completion opcode `op`. Returns true when
  // it is done before it executes, with `o` saying how: refused (QP state,
  // full send queue) or, in the Error state, flushed.
  bool post_done(Qp& q, bool det, WcOpcode op, uint32_t flags, Outcome& o);
  void push(Qp& q, WcStatus st, WcOpcode op, uint32_t flags, Rule why = Rule::poll_order);
  void unbind(Mw& w);
  uint64_t resolve(const Arg& addr) const;
  // Returns whether [va, va+len) lies inside one live trace buffer.
  bool in_buffer(uint64_t va, uint64_t len) const;
  uint32_t resolve_rkey(const Arg& r) const;
  Outcome remote(uint32_t qp, const Arg& rkey, const Arg& addr, uint64_t len, uint32_t right,
                 bool atomic);
  [[gnu::cold]] Outcome remote_unserved(uint32_t qp, uint32_t right);
  [[gnu::cold]] Outcome remote_refused(Qp& q, Rule fail, WcStatus st);
  [[gnu::cold]] Outcome transport_refused(Qp& q);
  Outcome invalidate(uint32_t qp, uint32_t rkey);
  Outcome out(Rule r, Result ret = Result::kOK, WcStatus wc = WcStatus::kNONE,
              WcOpcode wc_op = WcOpcode::kNONE, int16_t key = kNoKey) {
    return make_outcome(ret, wc, wc_op, key, r, consulted_);
  }
  uint8_t knob(Knob k) {
    consulted_ |= 1u << static_cast<int>(k);
    return profile_[k];
  }
  // Returns the status a work request that failed at the requester
  // completes with: its own, or the flush's (knob failed_request_status).
  WcStatus failed_status(WcStatus own) {
    return knob(Knob::failed_request_status) == alt::failed_request_status::flushed
               ? WcStatus::kIBV_WC_WR_FLUSH_ERR
               : own;
  }
  template <class T>
  static T* live(std::vector<T>& table, uint32_t h) {
    return h < table.size() && table[h].live ? &table[h] : nullptr;
  }

  Profile profile_;
  Mutant mutant_;
  uint32_t consulted_ = 0;
  // check_invariants()'s counting tables, kept between calls.
  struct Scratch {
    std::vector<uint32_t> bound, users, keys;
  };
  mutable Scratch scratch_;
  std::vector<Buf> bufs_;
  std::vector<Pd> pds_;
  std::vector<Mr> mrs_;
  std::vector<Mw> mws_;
  std::vector<Qp> qps_;
  // The tables' sizes, as reset() set them: a size() works out a division
  // by the entry's size, and liveness checks it on every op.
  Caps caps_{};
};
// Inline: a fast path takes copies through these after every op that
// changes a window or an MR.
inline uint32_t Model::resolve_rkey(const Arg& r) const {
  uint32_t base = 0;
  switch (static_cast<RkeyBase>(r.tag)) {
    case RkeyBase::Raw: return r.h;
    case RkeyBase::MwCur: base = r.h < mws_.size() ? mws_[r.h].cur : 0; break;
    case RkeyBase::MwPrev: base = r.h < mws_.size() ? mws_[r.h].prev : 0; break;
    case RkeyBase::Mr: base = r.h < mrs_.size() ? mrs_[r.h].rkey(r.h) : 0; break;
  }
  return static_cast<uint32_t>(rules::with_key<ModelDomain>(base, base + r.v));
}

inline Model::KeyTarget Model::key_target(uint32_t rkey) const {
  KeyTarget t;
  const layout::KeyObject k = layout::key_object(rkey);
  if (k.window) {
    const uint32_t h = k.h;
    if (h >= mws_.size()) return t;
    const Mw& w = mws_[h];
    if (!w.live || w.rkey != rkey || w.state != MwState::Bound) return t;
    if (w.mr >= mrs_.size() || !mrs_[w.mr].live || mrs_[w.mr].rkey(w.mr) != w.mr_rkey) return t;
    const Mr& m = mrs_[w.mr];
    t = KeyTarget{true, true, (w.access & acc::ZERO_BASED) != 0, w.pd,
                  w.type == 2 ? w.qp : kNoHandle, w.access, w.mr, w.addr, w.len, m.iova, m.len};
    return t;
  }
  if (k.h >= mrs_.size()) return t;
  const Mr& m = mrs_[k.h];
  if (!m.live || m.rkey(k.h) != rkey) return t;
  return KeyTarget{true, false, false, m.pd, kNoHandle, m.access, k.h, m.iova, m.len, m.iova, m.len};
}

#ifdef MWCHECK_BREAKABLE_MODEL
}  // namespace breakable
#endif

}  // namespace mwc
