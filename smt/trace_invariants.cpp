#include "smt/trace_invariants.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "refmodel/layout.hpp"

namespace mwc::smt {
#ifdef MWCHECK_BREAKABLE_MODEL
inline namespace breakable {
#endif
namespace {

constexpr InvariantDesc kInvariants[] = {
#define I(ident, name, src, stmt) {name, src, stmt},
    MWC_TRACE_INVARIANTS(I)
#undef I
};

constexpr uint32_t kRemoteRights = acc::REMOTE_READ | acc::REMOTE_WRITE | acc::REMOTE_ATOMIC;

// Returns whether [a, a+len) lies inside [lo, lo+blen), with no sum that
// can wrap. Plain arithmetic: the yardstick, not the rule template.
bool inside(uint64_t a, uint64_t len, uint64_t lo, uint64_t blen) {
  return a >= lo && len <= blen && a - lo <= blen - len;
}

// Returns whether two key targets are the same binding (or both none).
bool same(const Model::KeyTarget& a, const Model::KeyTarget& b) {
  if (!a.ok || !b.ok) return a.ok == b.ok;
  return a.window == b.window && a.zero_based == b.zero_based && a.pd == b.pd &&
         a.owner == b.owner && a.access == b.access && a.mr == b.mr && a.addr == b.addr &&
         a.len == b.len;
}

// Returns the rkey a reference names on `m`, from the key byte arithmetic
// of the layout (not the with_key template).
uint32_t resolve(const Model& m, const Arg& r) {
  uint32_t base = 0;
  switch (static_cast<RkeyBase>(r.tag)) {
    case RkeyBase::Raw: return r.h;
    case RkeyBase::MwCur: base = m.mw_keys(r.h).cur; break;
    case RkeyBase::MwPrev: base = m.mw_keys(r.h).prev; break;
    case RkeyBase::Mr: base = m.mr_rkey(r.h); break;
  }
  return static_cast<uint32_t>(layout::with_key_byte<Plain>(base, base + r.v));
}

struct BindView {
  uint32_t qp, mw, mr;
  Arg addr;
  uint64_t len;
  uint32_t access;
};

bool is_bind_refusal(Rule r) {
  switch (r) {
    case Rule::bind_ok:
    case Rule::bind_zero_length:
    case Rule::handle_live:
    case Rule::post_state:
    case Rule::post_depth:
    case Rule::post_flush:
      return false;
    default:
      return true;
  }
}

}  // namespace

const InvariantDesc& invariant_desc(Invariant i) { return kInvariants[static_cast<int>(i)]; }

uint8_t yardstick(const Profile& p, Knob k) {
  const KnobDesc& d = knob_descs()[static_cast<int>(k)];
  return d.alts[p[k]].kind == AltKind::deviation ? d.profile_value[0] : p[k];
}

void Ghost::reset(const Caps& caps) {
  mrs_ = caps[2];
  bufs_.assign(caps[0], 0);
  grants_.assign(caps[2] + caps[3], Grant{});
  mw_type_.assign(caps[3], 0);
  mw_pd_.assign(caps[3], 0);
  ended_.clear();
}

const Grant* Ghost::grant(uint32_t rkey) const {
  for (const Grant& g : grants_)
    if (g.live && g.rkey == rkey) return &g;
  return nullptr;
}

Ended Ghost::ended(uint32_t rkey) const {
  const auto it = std::lower_bound(ended_.begin(), ended_.end(), std::pair{rkey, Ended::no});
  return it != ended_.end() && it->first == rkey ? it->second : Ended::no;
}

void Ghost::end(Grant& g, Ended why) {
  if (!g.live) return;
  g.live = false;
  const auto it = std::lower_bound(ended_.begin(), ended_.end(), std::pair{g.rkey, Ended::no});
  if (it != ended_.end() && it->first == g.rkey) it->second = why;
  else ended_.insert(it, {g.rkey, why});
}

std::optional<Violation> Ghost::start(Grant g, uint32_t slot) {
  std::optional<Violation> v;
  if (ended(g.rkey) != Ended::no)
    v = Violation{Invariant::revoked_nothing,
                  fmt::format("rkey {:#x} is issued again: what it granted before was revoked", g.rkey)};
  else if (grant(g.rkey))
    v = Violation{Invariant::revoked_nothing, fmt::format("rkey {:#x} now names two grants", g.rkey)};
  const auto it = std::lower_bound(ended_.begin(), ended_.end(), std::pair{g.rkey, Ended::no});
  if (it != ended_.end() && it->first == g.rkey) ended_.erase(it);
  grants_[slot] = g;
  return v;
}

std::vector<uint32_t> Ghost::keys(const Model& m) const {
  std::vector<uint32_t> k;
  for (const Grant& g : grants_)
    if (g.live) k.push_back(g.rkey);
  for (const auto& e : ended_) k.push_back(e.first);
  for (uint32_t h = 0; h < mrs_; ++h)
    if (m.mr_rkey(h)) k.push_back(m.mr_rkey(h));
  for (uint32_t h = 0; h < mw_type_.size(); ++h) {
    const Model::MwKeys w = m.mw_keys(h);
    if (!w.rkey) continue;
    for (uint32_t r : {w.rkey, w.cur, w.prev}) {
      k.push_back(r);
      k.push_back(static_cast<uint32_t>(layout::with_key_byte<Plain>(r, r + 1)));  // a guess
    }
  }
  std::sort(k.begin(), k.end());
  k.erase(std::unique(k.begin(), k.end()), k.end());
  return k;
}

void Ghost::append_state(std::string& out) const {
  const auto put = [&out](auto v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (const Grant& g : grants_)
    if (g.live)
      put(g.rkey), put(g.zero_based), put(g.pd), put(g.access), put(g.mr), put(g.qp), put(g.lo), put(g.len);
    else
      put(uint32_t{0});
  for (size_t h = 0; h < mw_type_.size(); ++h) put(mw_type_[h]), put(mw_pd_[h]);
  for (const auto& e : ended_) put(e.first), put(e.second);
}

std::optional<Violation> Ghost::step(const Op& op, const Model& before, const Model& after,
                                     const Outcome& o, const Profile& yard) {
  const bool ok = o.ret == Result::kOK;
  std::optional<BindView> bind;
  switch (op.code) {
    case OpCode::buf:
      if (ok && op.a[0].h < bufs_.size()) bufs_[op.a[0].h] = op.a[1].v;
      return {};
    case OpCode::reg_mr:
    case OpCode::rdma_reg_msgs:
    case OpCode::rdma_reg_read:
    case OpCode::rdma_reg_write: {
      if (!ok || (o.rule != Rule::mr_ok && o.rule != Rule::mr_rdma_access)) return {};
      // rdma_reg_* share reg_mr's first fields (ops.def) and take a fixed access.
      const uint32_t h = op.a[0].h, pd = op.a[1].h;
      const uint32_t access =
          op.code == OpCode::reg_mr ? args::reg_mr(op).access
                                    : kRdmaRegAccess[static_cast<int>(op.code) -
                                                     static_cast<int>(OpCode::rdma_reg_msgs)];
      const uint64_t va = before.addr_of(op.a[2]), len = op.a[3].v;
      Grant g{true, false, false, after.mr_rkey(h), pd, access, h, kNoHandle,
              layout::mr_iova(access, va), len};
      auto v = start(g, h);
      const uint32_t b = layout::buf_of(va);
      if (b >= bufs_.size() || !inside(va, len, layout::buf_va(b), bufs_[b]))
        return Violation{Invariant::valid_objects,
                         fmt::format("m{} is registered over memory outside any buffer "
                                     "(ibv_reg_mr(3): EFAULT)",
                                     h)};
      if (access & (acc::REMOTE_WRITE | acc::REMOTE_ATOMIC) && !(access & acc::LOCAL_WRITE))
        return Violation{Invariant::valid_objects,
                         fmt::format("m{} is registered with remote write or atomic access and no "
                                     "LOCAL_WRITE",
                                     h)};
      return v;
    }
    case OpCode::dereg_mr:
    case OpCode::rdma_dereg_mr: {
      const uint32_t h = op.a[0].h;
      if (!ok || after.mr_rkey(h) != 0 || !grants_[h].live) return {};
      end(grants_[h], Ended::revoked);
      for (uint32_t w = mrs_; w < grants_.size(); ++w)
        if (grants_[w].live && grants_[w].mr == h) end(grants_[w], Ended::mr_gone);
      return {};
    }
    case OpCode::rereg_mr: {  // not explored; kept as the model's view says
      const uint32_t h = op.a[0].h;
      if (!ok || o.rule != Rule::mr_ok) return {};
      const Model::KeyTarget t = after.key_target(after.mr_rkey(h));
      grants_[h] = Grant{t.ok, false, false, after.mr_rkey(h), t.pd, t.access, h, kNoHandle,
                         t.mr_iova, t.mr_len};
      return {};
    }
    case OpCode::alloc_mw: {
      const args::alloc_mw a(op);
      if (!ok || o.rule != Rule::mw_ok) return {};
      mw_type_[a.h] = static_cast<uint8_t>(a.type);
      mw_pd_[a.h] = a.pd;
      return {};
    }
    case OpCode::dealloc_mw:
      if (o.rule == Rule::mw_dealloc_unbinds) end(grants_[mrs_ + op.a[0].h], Ended::revoked);
      return {};
    case OpCode::destroy_qp:
      if (ok && o.rule == Rule::qp_destroy)
        for (uint32_t w = mrs_; w < grants_.size(); ++w)
          if (grants_[w].live && grants_[w].qp == op.a[0].h) end(grants_[w], Ended::revoked);
      return {};
    case OpCode::wr_local_inv:
    case OpCode::peer_send_inv: {
      if (o.rule != Rule::inv_ok || !ok) return {};
      const uint32_t qp = op.a[0].h, rkey = resolve(before, op.a[1]);
      for (uint32_t w = mrs_; w < grants_.size(); ++w) {
        Grant& g = grants_[w];
        if (!g.live || g.rkey != rkey) continue;
        end(g, Ended::revoked);
        if (g.qp != kNoHandle && g.qp != qp &&
            yardstick(yard, Knob::type2_invalidator) == alt::type2_invalidator::bound_qp)
          return Violation{Invariant::type2_own_qp,
                           fmt::format("q{} invalidates w{}, a type 2 window bound to q{}", qp,
                                       w - mrs_, g.qp)};
      }
      return {};
    }
    case OpCode::bind_mw: {
      const args::bind_mw a(op);
      bind = BindView{a.qp, a.mw, a.mr, a.addr, a.len, a.access};
      break;
    }
    case OpCode::det_bind: {
      const args::det_bind a(op);
      bind = BindView{a.qp, a.mw, a.mr, a.addr, a.len, a.access};
      break;
    }
    case OpCode::wr_bind_mw: {
      const args::wr_bind_mw a(op);
      bind = BindView{a.qp, a.mw, a.mr, a.addr, a.len, a.access};
      break;
    }
    default:
      return {};
  }
  // A bind.
  const BindView& b = *bind;
  if (b.mw >= mw_type_.size()) return {};
  Grant& old = grants_[mrs_ + b.mw];
  const bool success = ok && (o.rule == Rule::bind_ok || o.rule == Rule::bind_zero_length);
  if (!success) {
    if (!is_bind_refusal(o.rule)) return {};
    // What the window granted before, and after: the same, or nothing.
    const uint32_t r0 = before.mw_keys(b.mw).rkey, r1 = after.mw_keys(b.mw).rkey;
    const Model::KeyTarget t0 = before.key_target(r0), t1 = after.key_target(r0);
    const bool completed = ok;  // refused through an error completion, not at once
    const bool destroy =
        completed && yardstick(yard, Knob::failed_bind) == alt::failed_bind::destroy;
    if (r1 != r0 && after.key_target(r1).ok)
      return Violation{Invariant::failed_bind,
                       fmt::format("w{} grants through a new rkey after its bind failed", b.mw)};
    if (destroy ? t1.ok : !same(t0, t1))
      return Violation{Invariant::failed_bind,
                       fmt::format("w{}'s failed bind {} its old binding", b.mw,
                                   destroy ? "kept" : t1.ok ? "changed" : "destroyed")};
    if (t0.ok && !t1.ok) end(old, Ended::revoked);
    return {};
  }
  end(old, Ended::revoked);  // a bind replaces (so invalidates) the binding before
  if (b.len == 0) return {};
  const uint32_t rkey = after.mw_keys(b.mw).rkey, pd = mw_pd_[b.mw];
  const uint8_t type = mw_type_[b.mw];
  const uint64_t addr = before.addr_of(b.addr);
  Grant g{true, true, (b.access & acc::ZERO_BASED) != 0, rkey, pd, b.access, b.mr,
          type == 2 ? b.qp : kNoHandle, addr, b.len};
  auto v = start(g, mrs_ + b.mw);
  const Grant* m = b.mr < mrs_ ? &grants_[b.mr] : nullptr;
  const auto bad = [&](const char* why) {
    return Violation{Invariant::valid_objects, fmt::format("w{} is bound over m{}: {}", b.mw, b.mr, why)};
  };
  if (!m || !m->live) return bad("the MR is not registered");
  if (m->pd != pd) return bad("the MR is in another PD (ibv_bind_mw(3): EPERM)");
  if (type == 2 && before.qp_pd(b.qp) != pd)
    return bad("the binding QP is in another PD (IBTA 10.6.7.2: type 2)");
  if (!(m->access & acc::MW_BIND)) return bad("the MR lacks MW_BIND (C10-73)");
  if (b.access & (acc::REMOTE_WRITE | acc::REMOTE_ATOMIC) && !(m->access & acc::LOCAL_WRITE))
    return bad("remote write or atomic rights over an MR without LOCAL_WRITE (C10-74)");
  if (b.access & acc::REMOTE_READ && !(m->access & acc::LOCAL_READ) &&
      yardstick(yard, Knob::local_read) == alt::local_read::required)
    return bad("REMOTE_READ over an MR without LOCAL_READ");
  const uint8_t flags = yardstick(yard, Knob::mw_access);
  if (flags != alt::mw_access::any && (b.access & ~(kRemoteRights | acc::ZERO_BASED)))
    return bad("the window carries a flag other than the remote ones (ibv_bind_mw(3))");
  if (flags == alt::mw_access::zero_rejected && !(b.access & kRemoteRights))
    return bad("the window grants no right (det_bind(3): EINVAL)");
  if (type == 1 && (b.access & acc::ZERO_BASED) &&
      yardstick(yard, Knob::zero_based_type1) == alt::zero_based_type1::reject)
    return bad("a type 1 window zero-based");
  if (!inside(addr, b.len, m->lo, m->len)) return bad("the window lies outside its MR (C10-75)");
  return v;
}

#ifdef MWCHECK_BREAKABLE_MODEL
}  // namespace breakable
#endif
}  // namespace mwc::smt
