#include "refmodel/model.hpp"

#include <algorithm>
#include <iterator>

#include "refmodel/rules.hpp"

namespace mwc {
namespace {
using C = ModelDomain;
bool bind_transport_ok(uint32_t t) { return t == qpt::RC || t == qpt::UC || t == qpt::XRC_SEND; }

// What a posted bind's checks before its access checks read of the state.
struct BindFacts {
  uint8_t type;  // the window's
  bool wr, mr, len, bound, zero_based, pd_checked;  // wr: IBV_WR_BIND_MW; mr: one is named
  uint32_t qp_pd, mw_pd, mr_pd;
};
// One of those checks: it refuses with `rule` and `err` when `refuses` says
// so; `reads` (if any) says when the state leaves `knob` to decide, and only
// then is the knob read (and reported as consulted); otherwise alt is 0.
struct BindLink {
  Rule rule;
  Result err;
  Knob knob;
  bool (*reads)(const BindFacts&);
  bool (*refuses)(const BindFacts&, uint8_t alt);
};
// The checks in the order they decide; the first refusal wins. Then come
// rules::kBindAccessChain and the range (Model::bind).
constexpr BindLink kBindChain[] = {
    {Rule::bind_wr_type1, Result::kEINVAL, Knob::type1_bind_wr,
     [](const BindFacts& f) { return f.type == 1 && f.wr; },
     [](const BindFacts& f, uint8_t a) {
       return f.type == 1 && f.wr && a == alt::type1_bind_wr::reject;
     }},
    {Rule::bind_mr_required, Result::kEINVAL, Knob{}, nullptr,
     [](const BindFacts& f, uint8_t) { return !f.mr && f.len; }},
    {Rule::bind_zero_length_type2, Result::kEINVAL, Knob::zero_length_type2,
     [](const BindFacts& f) { return f.type == 2 && !f.len; },
     [](const BindFacts& f, uint8_t a) {
       return f.type == 2 && !f.len && a == alt::zero_length_type2::reject;
     }},
    // A zero-length bind may invalidate a bound type 2 window; another may not rebind it.
    {Rule::bind_type2_free, Result::kEINVAL, Knob::type2_rebind,
     [](const BindFacts& f) { return f.type == 2 && f.len && f.bound; },
     [](const BindFacts& f, uint8_t a) {
       return f.type == 2 && f.len && f.bound && a == alt::type2_rebind::reject;
     }},
    // Type 2 always; type 1 where the knob says.
    {Rule::bind_qp_pd, Result::kEPERM, Knob::bind_qp_pd,
     [](const BindFacts& f) { return f.type != 2; },
     [](const BindFacts& f, uint8_t a) {
       return (f.type == 2 || a == alt::bind_qp_pd::always) && f.qp_pd != f.mw_pd;
     }},
    {Rule::bind_pd, Result::kEPERM, Knob{}, nullptr,
     [](const BindFacts& f, uint8_t) { return f.len && f.mr_pd != f.mw_pd && f.pd_checked; }},
    {Rule::bind_zero_based_type1, Result::kEINVAL, Knob::zero_based_type1,
     [](const BindFacts& f) { return f.len && f.type == 1 && f.zero_based; },
     [](const BindFacts& f, uint8_t a) {
       return f.len && f.type == 1 && f.zero_based && a == alt::zero_based_type1::reject;
     }},
};
}  // namespace

Model::Model(Profile profile, Mutant mutant) : profile_(std::move(profile)), mutant_(mutant) {}

void Model::reset(const Caps& caps) {
  // assign() reuses capacity: a model that replays many traces of the same
  // size allocates only for the first.
  bufs_.assign(caps[0], Buf{});
  pds_.assign(caps[1], Pd{});
  mrs_.assign(caps[2], Mr{});
  mws_.assign(caps[3], Mw{});
  qps_.assign(caps[4], Qp{});
  caps_ = caps;
}

void Model::grow(const Caps& caps) {
  const auto up = [&](auto& table, int k) {
    if (table.size() < caps[k]) table.resize(caps[k]);
    caps_[k] = static_cast<uint32_t>(table.size());
  };
  up(bufs_, 0), up(pds_, 1), up(mrs_, 2), up(mws_, 3), up(qps_, 4);
}

Outcome Model::step(const Op& op) {
  consulted_ = 0;
  return dispatch_ready(*this, op);
}

Outcome Model::skipped() { return out(Rule::handle_live, Result::kSKIP); }

// ---- addresses and keys ------------------------------------------------

inline uint64_t Model::resolve(const Arg& a) const {
  switch (static_cast<AddrBase>(a.tag)) {
    case AddrBase::Raw: return a.v;
    case AddrBase::Buf: return layout::buf_va(a.h) + a.v;
    case AddrBase::Mr: return (a.h < mrs_.size() ? mrs_[a.h].iova : 0) + a.v;
    case AddrBase::Mw: {
      if (a.h >= mws_.size()) return a.v;
      const Mw& w = mws_[a.h];
      return layout::window_base((w.access & acc::ZERO_BASED) != 0, w.addr) + a.v;
    }
  }
  return a.v;
}

bool Model::in_buffer(uint64_t va, uint64_t len) const {
  const uint32_t b = layout::buf_of(va);
  return b < bufs_.size() && bufs_[b].live &&
         rules::range_within<C>(va, len, layout::buf_va(b), bufs_[b].len);
}

uint64_t Model::addr_of(const Arg& a) const { return resolve(a); }

// ---- what a fast path copies ----------------------------------------------

Model::ObjectView Model::object(HandleKind k, uint32_t h) const {
  ObjectView v;
  switch (k) {
    case HandleKind::Buf:
      if (h < bufs_.size() && bufs_[h].live) v = {.live = true, .addr = layout::buf_va(h), .len = bufs_[h].len};
      break;
    case HandleKind::Pd:
      v.live = h < pds_.size() && pds_[h].live;
      break;
    case HandleKind::Mr:
      if (h < mrs_.size() && mrs_[h].live) {
        const Mr& m = mrs_[h];
        v = {.live = true, .bound = m.bound != 0, .pd = m.pd, .access = m.access, .addr = m.iova, .len = m.len};
      }
      break;
    case HandleKind::Mw:
      if (h < mws_.size() && mws_[h].live) {
        const Mw& w = mws_[h];
        v = {.live = true, .bound = w.state == MwState::Bound, .zero_based = (w.access & acc::ZERO_BASED) != 0,
             .type = w.type, .pd = w.pd, .owner = w.type == 2 ? w.qp : kNoHandle, .mr = w.mr,
             .access = w.access, .addr = w.addr, .len = w.len};
      }
      break;
    case HandleKind::Qp:
      if (h < qps_.size() && qps_[h].live) {
        const Qp& q = qps_[h];
        v = {.live = true, .type = static_cast<uint8_t>(q.type), .state = q.state, .pd = q.pd};
      }
      break;
  }
  return v;
}

// ---- resources ---------------------------------------------------------

Outcome Model::on_buf(const args::buf& a) {
  bufs_[a.h] = Buf{true, a.len};
  return out(Rule::buf_ok);
}

Outcome Model::on_alloc_pd(const args::alloc_pd& a) {
  pds_[a.h] = Pd{true, 0};
  return out(Rule::pd_ok);
}

Outcome Model::on_dealloc_pd(const args::dealloc_pd& a) {
  Pd* p = &pds_[a.h];
  if (p->users) return out(Rule::pd_busy, Result::kEBUSY);
  p->live = false;
  return out(Rule::pd_ok);
}

Outcome Model::reg(uint32_t h, uint32_t pd, const Arg& addr, uint64_t len, uint32_t access,
                   Rule ok) {
  Pd* p = &pds_[pd];
  if (!rules::mr_access_valid<C>(access)) return out(Rule::mr_access_local_write, Result::kEINVAL);
  const uint64_t va = resolve(addr);
  // Linux pins pages: zero bytes inside a page still cover one.
  if (len == 0 && (knob(Knob::zero_length_mr) == alt::zero_length_mr::reject || va % layout::kPage == 0))
    return out(Rule::mr_length, Result::kEINVAL);
  if (!in_buffer(va, len)) return out(Rule::mr_range, Result::kEFAULT);
  if ((access & acc::ZERO_BASED) && knob(Knob::zero_based_mr) == alt::zero_based_mr::page_aligned &&
      va % layout::kPage != 0)
    return out(Rule::mr_zero_based_page, Result::kEINVAL);
  Mr& m = mrs_[h];
  m.live = true;
  m.key = m.next_key++;
  m.pd = pd;
  m.access = access;
  m.bound = 0;
  m.va = va;
  m.len = len;
  m.iova = layout::mr_iova(access, va);
  ++p->users;
  return out(ok);
}

Outcome Model::on_reg_mr(const args::reg_mr& a) {
  return reg(a.h, a.pd, a.addr, a.len, a.access, Rule::mr_ok);
}
Outcome Model::on_rdma_reg_msgs(const args::rdma_reg_msgs& a) {
  return reg(a.h, a.pd, a.addr, a.len, kRdmaRegAccess[0], Rule::mr_rdma_access);
}
Outcome Model::on_rdma_reg_read(const args::rdma_reg_read& a) {
  return reg(a.h, a.pd, a.addr, a.len, kRdmaRegAccess[1], Rule::mr_rdma_access);
}
Outcome Model::on_rdma_reg_write(const args::rdma_reg_write& a) {
  return reg(a.h, a.pd, a.addr, a.len, kRdmaRegAccess[2], Rule::mr_rdma_access);
}

Outcome Model::dereg(uint32_t h) {
  Mr* m = &mrs_[h];
  if (m->bound && mutant_ != Mutant::dereg_while_bound) {
    const uint8_t k = knob(Knob::dereg_bound);
    if (k == alt::dereg_bound::ebusy) return out(Rule::mr_dereg_bound, Result::kEBUSY);
    if (k == alt::dereg_bound::einval) return out(Rule::mr_dereg_bound, Result::kEINVAL);
    // allowed: the windows stay bound to a dead MR and grant nothing.
  }
  const bool was_bound = m->bound != 0;
  m->live = false;
  m->bound = 0;
  --pds_[m->pd].users;
  return out(was_bound ? Rule::mr_dereg_bound : Rule::mr_ok);
}

Outcome Model::on_dereg_mr(const args::dereg_mr& a) { return dereg(a.h); }
Outcome Model::on_rdma_dereg_mr(const args::rdma_dereg_mr& a) { return dereg(a.h); }

Outcome Model::on_rereg_mr(const args::rereg_mr& a) {
  Mr* m = &mrs_[a.h];
  if (a.flags == 0) return out(Rule::mr_rereg_flags, Result::kEINVAL);
  if (m->bound && mutant_ != Mutant::dereg_while_bound) {
    const uint8_t k = knob(Knob::dereg_bound);
    if (k == alt::dereg_bound::ebusy) return out(Rule::mr_dereg_bound, Result::kEBUSY);
    if (k == alt::dereg_bound::einval) return out(Rule::mr_dereg_bound, Result::kEINVAL);
  }
  uint32_t pd = m->pd, access = m->access;
  uint64_t va = m->va, len = m->len;
  if (a.flags & rereg::CHANGE_PD) {
    if (!live(pds_, a.pd)) return out(Rule::mr_rereg_flags, Result::kEINVAL);
    pd = a.pd;
  }
  if (a.flags & rereg::CHANGE_ACCESS) {
    if (!rules::mr_access_valid<C>(a.access))
      return out(Rule::mr_access_local_write, Result::kEINVAL);
    access = a.access;
  }
  if (a.flags & rereg::CHANGE_TRANSLATION) {
    if (a.len == 0) return out(Rule::mr_length, Result::kEINVAL);
    va = resolve(a.addr);
    len = a.len;
    if (!in_buffer(va, len)) return out(Rule::mr_range, Result::kEFAULT);
  }
  --pds_[m->pd].users;
  ++pds_[pd].users;
  m->iova = layout::iova_after_rereg(a.flags, m->access, m->va, access, va);
  m->pd = pd;
  m->access = access;
  m->va = va;
  m->len = len;
  return out(Rule::mr_ok);
}

Outcome Model::on_alloc_mw(const args::alloc_mw& a) {
  Pd* p = &pds_[a.pd];
  if (a.type != 1 && a.type != 2) return out(Rule::mw_type, Result::kEINVAL);
  Mw& w = mws_[a.h];
  // A reused handle continues after the last key byte, so stale rkeys of
  // the previous window never match the new one.
  const uint8_t key = w.rkey ? static_cast<uint8_t>(layout::key_byte(w.rkey + 1)) : 0;
  w = Mw{};
  w.live = true;
  w.type = static_cast<uint8_t>(a.type);
  w.alloc_key = key;
  w.pd = a.pd;
  w.rkey = w.cur = w.prev = layout::mw_rkey(a.h, key);
  ++p->users;
  return out(Rule::mw_ok);
}

void Model::unbind(Mw& w) {
  if (w.state == MwState::Bound && w.mr < mrs_.size()) {
    Mr& m = mrs_[w.mr];
    if (m.live && m.rkey(w.mr) == w.mr_rkey) --m.bound;
  }
  w.state = MwState::Unbound;
  w.mr = w.qp = kNoHandle;
  w.mr_rkey = 0;
  w.access = 0;
  w.addr = w.len = 0;
}

Outcome Model::on_dealloc_mw(const args::dealloc_mw& a) {
  Mw* w = &mws_[a.h];
  unbind(*w);
  w->live = false;
  --pds_[w->pd].users;
  return out(Rule::mw_dealloc_unbinds);
}

Outcome Model::on_create_qp(const args::create_qp& a) {
  Pd* p = &pds_[a.pd];
  const auto st = static_cast<QpState>(a.state);
  // The state is reached as a consumer reaches it, by the legal transitions
  // from RESET (ibv_create_qp(3) makes a QP in RESET): SQE is not one of them.
  if (st == QpState::kSQE) return out(Rule::qp_transition, Result::kEINVAL);
  if (st == QpState::kERR && knob(Knob::reset_to_err) == alt::reset_to_err::refused)
    return out(Rule::qp_transition, Result::kEINVAL);
  Qp& q = qps_[a.h];
  q = Qp{};
  q.live = true;
  q.pd = a.pd;
  q.type = a.type;
  q.depth = static_cast<uint8_t>(std::clamp<uint64_t>(a.depth, 1, kMaxDepth));
  q.sig_all = a.sig_all != 0;
  q.state = st;
  ++p->users;
  return out(Rule::qp_create);
}

Outcome Model::on_modify_qp(const args::modify_qp& a) {
  Qp* q = &qps_[a.h];
  using S = QpState;
  const auto to = static_cast<S>(a.state);
  const S from = q->state;
  // The transitions ibv_modify_qp(3) allows (IBTA 10.3.1), beside any to
  // ERR: a bit per state it may go to, by state. A table, not a chain of
  // compares: the replay runs four in a row per failed op.
  constexpr auto bit = [](S s) { return 1u << static_cast<int>(s); };
  constexpr uint32_t kAny = bit(S::kRESET);
  static constexpr uint32_t kNext[] = {
      kAny | bit(S::kINIT),                 // RESET
      kAny | bit(S::kINIT) | bit(S::kRTR),  // INIT
      kAny | bit(S::kRTS),                  // RTR
      kAny | bit(S::kRTS) | bit(S::kSQD),   // RTS
      kAny | bit(S::kRTS) | bit(S::kSQD),   // SQD
      kAny | bit(S::kRTS),                  // SQE
      kAny,                                 // ERR
  };
  static_assert(std::size(kNext) == static_cast<size_t>(S::kERR) + 1);
  const bool ok = ((kNext[static_cast<int>(from)] >> static_cast<int>(to)) & 1) ||
                  (to == S::kERR && (from != S::kRESET || knob(Knob::reset_to_err) == alt::reset_to_err::allowed));
  if (!ok) return out(Rule::qp_transition, Result::kEINVAL);
  // RESET empties the queue; at RTR the peer is connected anew. Masks,
  // not branches: which of the four comes next is not predictable.
  const auto keep = static_cast<uint8_t>(-uint8_t{to != S::kRESET});
  q->head &= keep;
  q->count &= keep;
  q->peer_err &= to != S::kRTR;
  if (from == S::kSQD && to == S::kRTS)
    for (auto& e : q->ring) e.held = false;  // the drained queue runs again
  q->state = to;
  return out(Rule::qp_transition);
}

Outcome Model::on_destroy_qp(const args::destroy_qp& a) {
  Qp* q = &qps_[a.h];
  for (Mw& w : mws_)
    if (w.live && w.type == 2 && w.state == MwState::Bound && w.qp == a.h) unbind(w);
  q->live = false;
  --pds_[q->pd].users;
  return out(Rule::qp_destroy);
}

// ---- posting -----------------------------------------------------------

bool Model::post_done(Qp& q, bool det, WcOpcode op, uint32_t flags, Outcome& o) {
  const bool err = q.state == QpState::kERR || q.state == QpState::kSQE;
  // SQD accepts work requests; their completions are held until the QP is
  // back in RTS (push() marks them).
  if (q.state != QpState::kRTS && q.state != QpState::kSQD) {
    const bool enotconn = det || knob(Knob::post_bad_state) == alt::post_bad_state::enotconn;
    if (enotconn) return o = out(Rule::post_state, Result::kENOTCONN), true;
    if (!err) return o = out(Rule::post_state, Result::kEINVAL), true;
  }
  if (q.count >= q.depth) {
    const bool enospc = det || knob(Knob::sq_full_errno) == alt::sq_full_errno::enospc;
    return o = out(Rule::post_depth, enospc ? Result::kENOSPC : Result::kENOMEM), true;
  }
  if (!err) return false;
  push(q, WcStatus::kIBV_WC_WR_FLUSH_ERR, op, flags, Rule::post_flush);
  return o = out(Rule::post_flush), true;
}

void Model::push(Qp& q, WcStatus st, WcOpcode op, uint32_t flags, Rule why) {
  const bool signaled = q.sig_all || (flags & sendf::SIGNALED) || st != WcStatus::kIBV_WC_SUCCESS;
  q.ring[(q.head + q.count) % kMaxDepth] = Cqe{st, op, signaled, q.state == QpState::kSQD, why};
  ++q.count;
}

template <Model::BindApi Api, class View>
Outcome Model::bind(const View& r) {
  Qp* q = &qps_[r.qp];
  Mw* w = &mws_[r.mw];
  Mr* m = r.mr == kNoHandle ? nullptr : &mrs_[r.mr];
  const bool det = Api == BindApi::Det;
  const uint64_t addr = resolve(r.addr);

  // Refused by the API before anything is posted.
  if (!bind_transport_ok(q->type)) return out(Rule::bind_transport, Result::kEINVAL);
  if (Api == BindApi::Verb && w->type != 1) return out(Rule::bind_verb_type1, Result::kEINVAL);
  const uint8_t mode = det ? uint8_t{alt::bind_errors::immediate} : knob(Knob::bind_errors);
  if (Api == BindApi::Verb && mode == alt::bind_errors::provider_precheck) {
    if (!m && (r.len || addr)) return out(Rule::bind_mr_required, Result::kEINVAL);
    if ((r.access & acc::ZERO_BASED) &&
        knob(Knob::zero_based_type1) == alt::zero_based_type1::reject)
      return out(Rule::bind_zero_based_type1, Result::kEINVAL);
    if (m && m->pd != w->pd) return out(Rule::bind_pd, Result::kEPERM);
  }

  // The new rkey: ibv_inc_rkey of the consumer's copy, or the WR's key byte.
  uint64_t new_rkey = mutant_ == Mutant::key_not_advanced ? w->cur : rules::inc_rkey<C>(w->cur);
  if constexpr (Api == BindApi::Wr)
    new_rkey = rules::with_key<C>(w->cur, layout::wr_key_byte(r.key, w->cur, w->alloc_key));
  // The consumer's copy moves to a new rkey; one that stays keeps its previous.
  const auto take = [w](uint32_t rkey) {
    if (w->cur != rkey) w->prev = w->cur, w->cur = rkey;
  };
  const auto update_at_post = [&] {
    if (knob(Knob::rkey_update) == alt::rkey_update::post) take(static_cast<uint32_t>(new_rkey));
  };
  if (Outcome o; post_done(*q, det, WcOpcode::kIBV_WC_BIND_MW, r.flags, o)) {
    if (o.rule == Rule::post_flush) update_at_post();  // the provider set mw->rkey
    return o;
  }

  // The bind's own checks, in the order the IBTA lists them; the first
  // failing one decides.
  Rule fail = Rule::bind_ok;
  Result err = Result::kOK;
  const auto f = [&](Rule rule, Result e) {
    fail = rule;
    err = e;
  };
  const bool len = r.len != 0;
  // The access the checks read: before 425e1c9018fd, the window's old one.
  const uint32_t access = mutant_ == Mutant::access_before_set ? w->access : r.access;
  const uint32_t atomic_seen = mutant_ == Mutant::access_partial ? ~acc::REMOTE_ATOMIC : ~0u;
  const bool pd_checked = !(mutant_ == Mutant::wr_bind_no_pd && Api == BindApi::Wr);
  const BindFacts facts{w->type, Api == BindApi::Wr, m != nullptr, len,
                        w->state == MwState::Bound, (access & acc::ZERO_BASED) != 0,
                        pd_checked, q->pd, w->pd, m ? m->pd : 0};
  rules::walk<kBindChain>([&](const BindLink& c) __attribute__((always_inline)) {
    // A link reads its knob only when the state leaves the knob to decide.
    const uint8_t alt = c.reads && c.reads(facts) ? knob(c.knob) : 0;
    if (!c.refuses(facts, alt)) return false;
    f(c.rule, c.err);
    return true;
  });
  if (fail == Rule::bind_ok && len) {
    // The access checks, in the order rules.hpp gives them, then the range.
    rules::walk<rules::kBindAccessChain<C>>([&](const rules::BindAccessCheck<C>& c)
                                                __attribute__((always_inline)) {
      // access_partial's bug is in one link: C10-74 blind to REMOTE_ATOMIC.
      const uint32_t mw = c.rule == Rule::bind_local_write ? access & atomic_seen : access;
      if (c.holds(mw, m->access, c.uses_knob ? knob(c.knob) : 0)) return false;
      f(c.rule, c.err);
      return true;
    });
    // zero_based_range_len_only's bug: a zero-based window's length alone is checked.
    const bool in_mr = mutant_ == Mutant::zero_based_range_len_only && (access & acc::ZERO_BASED)
                           ? r.len <= m->len
                           : rules::window_in_mr<C>(addr, r.len, m->iova, m->len);
    if (fail == Rule::bind_ok && !in_mr) f(Rule::bind_range, Result::kERANGE);
    // bind_error_leaks_mr's bug: the refusal of the window's flags keeps the MR's reference.
    if (fail == Rule::bind_mw_access && mutant_ == Mutant::bind_error_leaks_mr) ++m->bound;
  }

  if (fail != Rule::bind_ok) {
    if (mode == alt::bind_errors::immediate) return out(fail, err);
    push(*q, failed_status(WcStatus::kIBV_WC_MW_BIND_ERR), WcOpcode::kIBV_WC_BIND_MW, r.flags,
         Rule::bind_error_completion);
    q->state = QpState::kERR;
    update_at_post();
    if (knob(Knob::failed_bind) == alt::failed_bind::destroy ||
        mutant_ == Mutant::failed_bind_destroys)
      unbind(*w);
    return out(fail);
  }

  unbind(*w);  // a bind replaces (and so invalidates) the previous binding
  if (len) {
    w->state = MwState::Bound;
    w->mr = r.mr;
    w->mr_rkey = m->rkey(r.mr);
    ++m->bound;
    w->addr = addr;
    w->len = r.len;
    w->access = r.access;
    if (w->type == 2) w->qp = r.qp;
  }
  w->rkey = static_cast<uint32_t>(new_rkey);
  take(w->rkey);
  push(*q, WcStatus::kIBV_WC_SUCCESS, WcOpcode::kIBV_WC_BIND_MW, r.flags);
  return out(len ? Rule::bind_ok : Rule::bind_zero_length, Result::kOK, WcStatus::kNONE, WcOpcode::kNONE,
             layout::key_moved(w->rkey, w->alloc_key));
}

Outcome Model::on_bind_mw(const args::bind_mw& a) {
  return bind<BindApi::Verb>(a);
}
Outcome Model::on_det_bind(const args::det_bind& a) {
  return bind<BindApi::Det>(a);
}
Outcome Model::on_wr_bind_mw(const args::wr_bind_mw& a) {
  return bind<BindApi::Wr>(a);
}

// Returns the rule that refuses invalidating `rkey` from QP `qp`, or inv_ok.
Outcome Model::invalidate(uint32_t qp, uint32_t rkey) {
  const layout::KeyObject k = layout::key_object(rkey);
  Mw* w = k.window ? live(mws_, k.h) : nullptr;
  Rule fail = Rule::inv_ok;
  if (!w || w->rkey != rkey)
    fail = Rule::inv_rkey;
  else if (w->type != 2)
    fail = Rule::inv_type2;
  else if (w->state != MwState::Bound)
    fail = Rule::inv_state;
  else if (w->qp != qp && knob(Knob::type2_invalidator) == alt::type2_invalidator::bound_qp)
    fail = Rule::inv_qp;
  if (fail == Rule::inv_ok && mutant_ != Mutant::stale_rkey) unbind(*w);
  return out(fail);
}

Outcome Model::on_wr_local_inv(const args::wr_local_inv& a) {
  Qp* q = &qps_[a.qp];
  if (Outcome o; post_done(*q, false, WcOpcode::kIBV_WC_LOCAL_INV, a.flags, o)) return o;
  Outcome o = invalidate(a.qp, resolve_rkey(a.rkey));
  if (o.rule != Rule::inv_ok) {
    push(*q, failed_status(WcStatus::kIBV_WC_LOC_QP_OP_ERR), WcOpcode::kIBV_WC_LOCAL_INV, a.flags, o.rule);
    q->state = QpState::kERR;
  } else {
    push(*q, WcStatus::kIBV_WC_SUCCESS, WcOpcode::kIBV_WC_LOCAL_INV, a.flags);
  }
  return o;
}

Outcome Model::on_wr_send(const args::wr_send& a) {
  Qp* q = &qps_[a.qp];
  if (Outcome o; post_done(*q, false, WcOpcode::kIBV_WC_SEND, a.flags, o)) return o;
  if (q->peer_err && q->type == qpt::UC) {  // no acknowledgement on UC: sent and lost
    push(*q, WcStatus::kIBV_WC_SUCCESS, WcOpcode::kIBV_WC_SEND, a.flags);
    return out(Rule::remote_uc_drop);
  }
  if (q->peer_err) {  // nobody answers: the requester retries out
    push(*q, WcStatus::kIBV_WC_RETRY_EXC_ERR, WcOpcode::kIBV_WC_SEND, a.flags,
         Rule::remote_responder_state);
    q->state = QpState::kERR;
    return out(Rule::remote_responder_state);
  }
  push(*q, WcStatus::kIBV_WC_SUCCESS, WcOpcode::kIBV_WC_SEND, a.flags);
  return out(Rule::send_ordered);
}

// ---- the peer's requests -------------------------------------------------
//
// The hot path of a replay: the peer's RDMA read, write or atomic through an
// rkey. As a NIC does it: the key's index selects an MR or window slot, a
// few compares against that slot (the rule templates) decide, and the rare
// refusals leave the path through cold functions.

// A request the responder cannot take: the QP is gone, of the wrong
// transport, or not ready to respond. Returns its outcome.
Outcome Model::remote_unserved(uint32_t qp, uint32_t right) {
  Qp* q = &qps_[qp];
  const bool uc_write = q->type == qpt::UC && right == acc::REMOTE_WRITE;
  if (q->type != qpt::RC && !uc_write) return transport_refused(*q);
  if (q->peer_err) return out(Rule::remote_flush, Result::kOK, WcStatus::kIBV_WC_WR_FLUSH_ERR);
  // UC has no acknowledgements and so no retries: the write is sent and lost.
  if (q->type == qpt::UC) return out(Rule::remote_uc_drop, Result::kOK, WcStatus::kIBV_WC_SUCCESS);
  q->peer_err = true;
  return out(Rule::remote_responder_state, Result::kOK, WcStatus::kIBV_WC_RETRY_EXC_ERR);
}

// A request the QP's transport cannot carry: refused when posted, or (knob
// transport_check) posted and completed with a local QP operation error
// that moves the requester to Error, after which its requests flush.
Outcome Model::transport_refused(Qp& q) {
  if (knob(Knob::transport_check) == alt::transport_check::post)
    return out(Rule::remote_transport, Result::kEINVAL);
  if (q.peer_err) return out(Rule::remote_flush, Result::kOK, WcStatus::kIBV_WC_WR_FLUSH_ERR);
  q.peer_err = true;
  return out(Rule::remote_transport, Result::kOK, failed_status(WcStatus::kIBV_WC_LOC_QP_OP_ERR));
}

// A request refused by rule `fail`: RC answers with an error that breaks
// the connection; UC drops it silently. Returns its outcome.
Outcome Model::remote_refused(Qp& q, Rule fail, WcStatus st) {
  if (q.type == qpt::UC) return out(Rule::remote_uc_drop, Result::kOK, WcStatus::kIBV_WC_SUCCESS);
  q.peer_err = true;
  q.state = QpState::kERR;
  return out(fail, Result::kOK, st);
}

// A request the responder serves (the QP is live, of a transport that
// takes it, its peer connected and ready) is decided by the key's slot.
[[gnu::always_inline]] inline Outcome Model::remote(uint32_t qp, const Arg& rkey_ref,
                                                    const Arg& addr_ref, uint64_t len,
                                                    uint32_t right, bool atomic) {
  if (atomic && knob(Knob::atomic_align_check) == alt::atomic_align_check::post) [[unlikely]]
    if (!rules::atomic_aligned<C>(resolve(addr_ref)))
      return out(Rule::remote_atomic_align, Result::kEINVAL);  // the provider refuses the post
  Qp* q = &qps_[qp];  // live: dispatch checked it
  if (!serves(*q, right)) [[unlikely]]
    return remote_unserved(qp, right);
  // IBTA C9-88: a zero-length RDMA READ or WRITE need not carry a valid
  // R_Key or address; the responder checks neither, and nothing moves.
  if (len == 0 && !atomic) [[unlikely]]
    return out(Rule::remote_zero_length, Result::kOK, WcStatus::kIBV_WC_SUCCESS);
  const uint32_t rkey = resolve_rkey(rkey_ref);
  const uint64_t raddr = resolve(addr_ref);
  const auto c = check_remote<C>(qp, q->pd, rkey, raddr, len, right, atomic,
                                 [this] {
                                   return mutant_ == Mutant::range_mr_only
                                              ? uint8_t{alt::remote_range::mr_only}
                                              : knob(Knob::remote_range);
                                 });
  if (c.fail != Rule::remote_ok) [[unlikely]]
    return remote_refused(*q, c.fail, WcStatus::kIBV_WC_REM_ACCESS_ERR);
  if (!c.in_range) [[unlikely]]
    return remote_refused(*q, Rule::remote_range, WcStatus::kIBV_WC_REM_ACCESS_ERR);
  if (!c.aligned) [[unlikely]]
    return remote_refused(*q, Rule::remote_atomic_align, WcStatus::kIBV_WC_REM_INV_REQ_ERR);
  return out(Rule::remote_ok, Result::kOK, WcStatus::kIBV_WC_SUCCESS);
}

Outcome Model::on_peer_write(const args::peer_write& a) {
  return remote(a.qp, a.rkey, a.addr, a.len, acc::REMOTE_WRITE, false);
}
Outcome Model::on_peer_read(const args::peer_read& a) {
  return remote(a.qp, a.rkey, a.addr, a.len, acc::REMOTE_READ, false);
}
Outcome Model::on_peer_fetch_add(const args::peer_fetch_add& a) {
  return remote(a.qp, a.rkey, a.addr, 8, acc::REMOTE_ATOMIC, true);
}
Outcome Model::on_peer_cmp_swap(const args::peer_cmp_swap& a) {
  return remote(a.qp, a.rkey, a.addr, 8, acc::REMOTE_ATOMIC, true);
}

Outcome Model::on_peer_send_inv(const args::peer_send_inv& a) {
  Qp* q = &qps_[a.qp];
  if (q->type != qpt::RC) return transport_refused(*q);
  if (q->peer_err) return out(Rule::remote_flush, Result::kOK, WcStatus::kIBV_WC_WR_FLUSH_ERR);
  if (!responds(q->state)) {
    q->peer_err = true;
    return out(Rule::remote_responder_state, Result::kOK, WcStatus::kIBV_WC_RETRY_EXC_ERR);
  }
  const Outcome o = invalidate(a.qp, resolve_rkey(a.rkey));
  if (o.rule == Rule::inv_ok) return out(o.rule, o.ret, WcStatus::kIBV_WC_SUCCESS);
  q->peer_err = true;
  q->state = QpState::kERR;
  return out(o.rule, o.ret, WcStatus::kIBV_WC_REM_INV_REQ_ERR);
}

Outcome Model::on_poll_cq(const args::poll_cq& a) {
  Qp* q = &qps_[a.qp];
  // Unsignaled successes leave the ring only with the next signaled entry.
  for (uint8_t i = 0; i < q->count; ++i) {
    const Cqe& e = q->ring[(q->head + i) % kMaxDepth];
    if (e.held) break;  // in order: nothing after it has completed either
    if (!e.signaled) continue;
    q->head = static_cast<uint8_t>((q->head + i + 1) % kMaxDepth);
    q->count = static_cast<uint8_t>(q->count - i - 1);
    return out(e.rule, Result::kOK, e.st, e.op);
  }
  return out(Rule::poll_empty, Result::kEMPTY);
}

// ---- the state as bytes ----------------------------------------------------

void Model::append_state(std::string& out) const {
  const auto put = [&out](auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const Buf& b : bufs_) put(b.live), put(b.len);
  for (const Pd& p : pds_) put(p.live), put(p.users);
  for (const Mr& m : mrs_)
    put(m.live), put(m.key), put(m.next_key), put(m.pd), put(m.access), put(m.bound), put(m.va),
        put(m.len), put(m.iova);
  for (const Mw& w : mws_)
    put(w.live), put(w.type), put(w.alloc_key), put(w.state), put(w.pd), put(w.rkey), put(w.cur),
        put(w.prev), put(w.mr), put(w.mr_rkey), put(w.access), put(w.qp), put(w.addr), put(w.len);
  for (const Qp& q : qps_) {
    put(q.live), put(q.peer_err), put(q.sig_all), put(q.depth), put(q.count), put(q.pd),
        put(q.type), put(q.state);
    for (uint8_t i = 0; i < q.count; ++i) {  // the ring from its head: where it starts is no state
      const Cqe& e = q.ring[(q.head + i) % kMaxDepth];
      put(e.st), put(e.op), put(e.signaled), put(e.held), put(e.rule);
    }
  }
}

// ---- invariants ----------------------------------------------------------

const char* Model::check_invariants() const {
  // Counted in scratch tables the model keeps: assign() reuses their
  // capacity, so a fuzzer checking after every op allocates only at first.
  std::vector<uint32_t>& bound = scratch_.bound;
  std::vector<uint32_t>& users = scratch_.users;
  std::vector<uint32_t>& keys = scratch_.keys;
  bound.assign(mrs_.size(), 0);
  users.assign(pds_.size(), 0);
  keys.clear();
  for (uint32_t h = 0; h < mws_.size(); ++h) {
    const Mw& w = mws_[h];
    if (!w.live) continue;
    ++users[w.pd];
    if (layout::rkey_index(w.rkey) != layout::mw_index(h)) return "a window's rkey lost its index";
    if (w.state != MwState::Bound) continue;
    if (w.len == 0) return "a bound window has length 0";
    if (w.type == 2 && w.qp == kNoHandle) return "a bound type 2 window has no QP";
    const Mr& m = mrs_[w.mr];
    if (!m.live || m.rkey(w.mr) != w.mr_rkey) {
      if (profile_[Knob::dereg_bound] != alt::dereg_bound::allowed)
        return "a window is bound to a deregistered MR";
      continue;
    }
    ++bound[w.mr];
    // Where rereg_mr is allowed on a bound MR, the MR may move under its windows.
    if (!rules::window_in_mr<C>(w.addr, w.len, m.iova, m.len) &&
        profile_[Knob::dereg_bound] != alt::dereg_bound::allowed)
      return "a window lies outside its MR";
  }
  for (uint32_t h = 0; h < mrs_.size(); ++h) {
    if (!mrs_[h].live) continue;
    ++users[mrs_[h].pd];
    if (mrs_[h].bound != bound[h]) return "an MR's bound-window count is wrong";
  }
  for (const Qp& q : qps_) {
    if (!q.live) continue;
    ++users[q.pd];
    if (q.count > q.depth) return "a send queue holds more than its depth";
    // A QP in the Error state flushes everything: no success after an error.
    bool errored = false;
    for (uint8_t i = 0; i < q.count; ++i) {
      const bool ok = q.ring[(q.head + i) % kMaxDepth].st == WcStatus::kIBV_WC_SUCCESS;
      if (!ok) errored = true;
      else if (errored) return "a completion succeeds after an error completion of its QP";
    }
    if (errored && q.state != QpState::kERR) return "a QP holds an error completion outside Error";
  }
  // Valid rkeys are unique: no two live MRs or bound windows share one.
  for (uint32_t h = 0; h < mrs_.size(); ++h)
    if (mrs_[h].live) keys.push_back(mrs_[h].rkey(h));
  for (const Mw& w : mws_)
    if (w.live && w.state == MwState::Bound) keys.push_back(w.rkey);
  std::sort(keys.begin(), keys.end());
  if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) return "two valid rkeys are equal";
  for (uint32_t h = 0; h < pds_.size(); ++h)
    if (pds_[h].live && pds_[h].users != users[h]) return "a PD's user count is wrong";
  return nullptr;
}

}  // namespace mwc
