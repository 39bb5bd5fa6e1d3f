#include "smt/theorems.hpp"

#include <bit>
#include <chrono>

#include <fmt/format.h>

#include "refmodel/broken_rules.hpp"
#include "refmodel/profile.hpp"
#include "smt/domain.hpp"

namespace mwc::smt {
namespace {
using E = z3::expr;
using R = Rule;

E var(const char* name) { return Sym::ctx().bv_const(name, 64); }
E bvar(const char* name) { return Sym::ctx().bool_const(name); }
E yes() { return Sym::ctx().bool_val(true); }
// Returns whether flag `f` (one bit) is set in `v`, by bit extraction: the
// statements below do not reuse the templates' masks.
E bit(const E& v, uint32_t f) {
  const unsigned i = static_cast<unsigned>(std::countr_zero(f));
  return v.extract(i, i) == Sym::ctx().bv_val(1, 1);
}
// Returns v as a 65-bit number, so that sums of two 64-bit values never wrap.
E wide(const E& v) { return z3::zext(v, 1); }
E fits32(const E& v) { return z3::ult(v, Sym::lit(uint64_t{1} << 32)); }

// The access checks a non-zero-length bind passes under profile p: the
// conjunction of the chain the model walks (rules::kBindAccessChain).
template <class D>
E bind_access_ok(const E& mw, const E& mr, const Profile& p) {
  E all = yes();
  for (const auto& c : rules::kBindAccessChain<D>) all = all && c.holds(mw, mr, c.uses_knob ? p[c.knob] : 0);
  return all;
}

// Returns whether a remote access needing `right` passes every check of the
// chain the model walks (rules::kRemoteChain) through a bound window with
// access `mw`, of the QP's PD and, type 2, bound to that QP.
template <class D>
E remote_through_window_ok(const E& mw, const E& right) {
  const E pd = var("pd"), qp = var("qp");
  return rules::remote_chain_ok<D>({yes(), pd, bvar("type2"), qp, mw, yes(), qp, pd, right});
}

// Returns the conjunction of f(profile) over the five profiles.
template <class F>
E every_profile(F f) {
  E all = yes();
  for (int i = 0; i < kProfileCount; ++i) all = all && f(profile(static_cast<ProfileId>(i)));
  return all;
}

}  // namespace

template <class D>
std::vector<Theorem> theorems() {
  std::vector<Theorem> ts;
  const E mw = var("mw_access"), mr = var("mr_access"), right = var("right");
  const E a = var("addr"), len = var("len"), base = var("mr_iova"), blen = var("mr_len");
  const E raddr = var("raddr"), rlen = var("rlen"), zb = bvar("zero_based");
  const E rkey = var("rkey"), key = var("key");
  const E one_right = right == Sym::lit(acc::REMOTE_READ) || right == Sym::lit(acc::REMOTE_WRITE) ||
                      right == Sym::lit(acc::REMOTE_ATOMIC);
  const E writes = bit(mw, acc::REMOTE_WRITE) || bit(mw, acc::REMOTE_ATOMIC);

  // ---- access flags, all 2^64 combinations ----
  ts.push_back({"access.mr_remote_write_needs_local_write", {R::mr_access_local_write},
                "ibv_reg_mr(3): an MR with REMOTE_WRITE or REMOTE_ATOMIC has LOCAL_WRITE",
                "", false,
                z3::implies(rules::mr_access_valid<D>(mr),
                            z3::implies(bit(mr, acc::REMOTE_WRITE) || bit(mr, acc::REMOTE_ATOMIC),
                                        bit(mr, acc::LOCAL_WRITE))),
                {mr}});
  ts.push_back({"access.bind_needs_mw_bind", {R::bind_mr_mw_bind},
                "IBTA C10-73, det_bind(3) EACCES: a window binds only to an MR with MW_BIND, "
                "in every profile",
                "", false,
                every_profile([&](const Profile& p) {
                  return z3::implies(bind_access_ok<D>(mw, mr, p), bit(mr, acc::MW_BIND));
                }),
                {mw, mr}});
  ts.push_back({"access.window_write_needs_local_write", {R::bind_local_write},
                "ibv_bind_mw(3), IBTA C10-74: REMOTE_WRITE or REMOTE_ATOMIC on a window needs "
                "LOCAL_WRITE on the MR, in every profile",
                "", false,
                every_profile([&](const Profile& p) {
                  return z3::implies(bind_access_ok<D>(mw, mr, p) && writes,
                                     bit(mr, acc::LOCAL_WRITE));
                }),
                {mw, mr}});
  {
    const Profile det = profile(ProfileId::det);
    const E eacces = !bit(mr, acc::MW_BIND) || (writes && !bit(mr, acc::LOCAL_WRITE)) ||
                     (bit(mw, acc::REMOTE_READ) && !bit(mr, acc::LOCAL_READ));
    // The links of the chain that refuse with EACCES, as the model walks them.
    E passes = yes();
    for (const auto& c : rules::kBindAccessChain<D>)
      if (c.err == Result::kEACCES) passes = passes && c.holds(mw, mr, c.uses_knob ? det[c.knob] : 0);
    ts.push_back({"access.det_eacces", {R::bind_mr_mw_bind, R::bind_local_write, R::bind_local_read},
                  "det_bind(3) EACCES exactly when the MR lacks MW_BIND, a write or atomic "
                  "right lacks LOCAL_WRITE, or a read right lacks LOCAL_READ on the MR",
                  "", false, eacces == !passes, {mw, mr}});
  }
  {
    const uint64_t window = acc::REMOTE_WRITE | acc::REMOTE_READ | acc::REMOTE_ATOMIC | acc::ZERO_BASED;
    const E only = (mw & Sym::lit(~window)) == Sym::lit(0);
    const E some_right =
        bit(mw, acc::REMOTE_WRITE) || bit(mw, acc::REMOTE_READ) || bit(mw, acc::REMOTE_ATOMIC);
    ts.push_back({"access.window_flags", {R::bind_mw_access},
                  "ibv_bind_mw(3): a window carries only REMOTE_WRITE, REMOTE_READ, "
                  "REMOTE_ATOMIC, ZERO_BASED; det_bind(3): and at least one remote right",
                  "", false,
                  rules::mw_access_allowed<D>(mw, alt::mw_access::remote_only) == only &&
                      rules::mw_access_allowed<D>(mw, alt::mw_access::zero_rejected) ==
                          (only && some_right),
                  {mw}});
  }
  ts.push_back({"access.window_rights_bounded", {R::remote_access, R::bind_local_write, R::bind_local_read},
                "rights granted through a window never exceed the window's flags, and the MR's "
                "local rights back them (LOCAL_WRITE; LOCAL_READ where required), in every profile",
                "", false,
                every_profile([&](const Profile& p) {
                  const bool need_read = p[Knob::local_read] == alt::local_read::required;
                  const E backed_read = need_read ? z3::implies(right == Sym::lit(acc::REMOTE_READ),
                                                                bit(mr, acc::LOCAL_READ))
                                                  : yes();
                  return z3::implies(
                      one_right && rules::mr_access_valid<D>(mr) && bind_access_ok<D>(mw, mr, p) &&
                          remote_through_window_ok<D>(mw, right),
                      (mw & right) == right &&
                          z3::implies(right != Sym::lit(acc::REMOTE_READ), bit(mr, acc::LOCAL_WRITE)) &&
                          backed_read);
                }),
                {mw, mr, right}});

  // ---- ranges, all 64-bit values, wrap-around included ----
  // The spec side in unbounded arithmetic, as offsets: [a, a+len) lies in
  // [base, base+blen) when base <= a and (a - base) + len <= blen.
  ts.push_back({"range.window_inside_mr", {R::bind_range},
                "IBTA C10-75, det_bind(3) ERANGE: a bind's range check passes exactly when the "
                "window lies inside the MR, with no wrap-around",
                "", false,
                rules::window_in_mr<D>(a, len, base, blen) ==
                    (z3::ule(base, a) && z3::ule(wide(a - base) + wide(len), wide(blen))),
                {a, len, base, blen}});
  {
    const E bound = rules::window_in_mr<D>(a, len, base, blen);
    const auto ok = [&](const E& z, uint8_t knob) {
      return rules::remote_range_ok<D>(raddr, rlen, z, a, len, base, blen, knob);
    };
    const E yes_zb = Sym::ctx().bool_val(true), no_zb = Sym::ctx().bool_val(false);
    // Inside the window: zero-based, offset + rlen <= len; else as an address.
    const E in_win_zb = z3::ule(wide(raddr) + wide(rlen), wide(len));
    const E in_win_va = z3::ule(a, raddr) && z3::ule(wide(raddr - a) + wide(rlen), wide(len));
    ts.push_back({"range.remote_inside_window", {R::remote_range, R::bind_range},
                  "IBTA C10-75: a remote access allowed through a bound window (knob remote_range "
                  "= window) lies inside the window, zero-based (an offset) or not (an address)",
                  "", false,
                  z3::implies(bound && ok(yes_zb, alt::remote_range::window), in_win_zb) &&
                      z3::implies(bound && ok(no_zb, alt::remote_range::window), in_win_va),
                  {raddr, rlen, a, len, base, blen}});
    ts.push_back({"range.zero_based_translation", {R::remote_range},
                  "ibv_bind_mw(3) ZERO_BASED: offset raddr of a zero-based window names window "
                  "address + raddr, and an allowed access stays inside the window",
                  "", false,
                  rules::translate<D>(raddr, yes_zb, a) == a + raddr &&
                      rules::translate<D>(raddr, no_zb, a) == raddr &&
                      z3::implies(bound && ok(yes_zb, alt::remote_range::window), in_win_zb),
                  {raddr, rlen, a, len}});
    const E va = wide(a) + wide(raddr);
    ts.push_back({"range.mr_only_inside_mr", {R::remote_range},
                  "knob remote_range = mr_only (rxe): an access allowed through a zero-based "
                  "window lies inside the MR",
                  "under mr_only, window address + offset is computed modulo 2^64: an offset near "
                  "2^64 wraps to MR bytes before the window, which mr_only grants (rxe check_rkey "
                  "adds the window's start to the offset in 64 bits)",
                  false,
                  z3::implies(bound && len != Sym::lit(0) && ok(yes_zb, alt::remote_range::mr_only),
                              z3::ule(wide(base), va) &&
                                  z3::ule(va + wide(rlen), wide(base) + wide(blen))),
                  {raddr, rlen, a, len, base, blen}});
    ts.push_back({"range.atomic_alignment", {R::remote_atomic_align},
                  "IBTA 9.4.5: an atomic's address is a multiple of 8",
                  "", false, rules::atomic_aligned<D>(raddr) == (z3::urem(raddr, Sym::lit(8)) == Sym::lit(0)),
                  {raddr}});
  }

  // ---- invalidation and keys ----
  const E index = layout::index_bits<D>(rkey);
  ts.push_back({"inval.bind_changes_rkey", {R::bind_ok, R::bind_zero_length, R::remote_rkey},
                "ibv_bind_mw(3), ibv_inc_rkey: every bind (zero-length included) gives the window "
                "a new 32-bit rkey with the same index, so remote.rkey refuses the previous one",
                "", false,
                z3::implies(fits32(rkey), rules::inc_rkey<D>(rkey) != rkey &&
                                              layout::index_bits<D>(rules::inc_rkey<D>(rkey)) == index &&
                                              fits32(rules::inc_rkey<D>(rkey))),
                {rkey}});
  ts.push_back({"inval.with_key_keeps_index", {R::bind_ok},
                "IBV_WR_BIND_MW: the new rkey is the window's index with the consumer's key byte",
                "", false,
                z3::implies(fits32(rkey),
                            layout::index_bits<D>(rules::with_key<D>(rkey, key)) == index &&
                                layout::key_byte<D>(rules::with_key<D>(rkey, key)) ==
                                    layout::key_byte<D>(key)),
                {rkey, key}});
  {
    E repeats = Sym::ctx().bool_val(false);
    E k = rkey;
    for (int n = 1; n <= 255; ++n) {
      k = rules::inc_rkey<D>(k);
      repeats = repeats || k == rkey;
    }
    ts.push_back({"inval.rkey_fresh_for_255_binds", {R::bind_ok, R::remote_rkey},
                  "after 1 to 255 binds of a window (ibv_inc_rkey), none of its earlier rkeys "
                  "grants access again",
                  "", false, !repeats, {rkey}});
    ts.push_back({"inval.rkey_fresh_forever", {R::bind_ok, R::remote_rkey},
                  "after any number of binds, no earlier rkey of a window grants access again",
                  "the 8-bit key byte wraps: after 256 binds the window's rkey is the one it had "
                  "256 binds before, and a copy of that stale rkey grants access again "
                  "(IBTA 9.7.4.1.4 keys are 8 bits; ibv_inc_rkey)",
                  false, rules::inc_rkey<D>(k) != rkey, {rkey}});
  }
  ts.push_back({"inval.rebind_after_invalidate_fresh", {R::inv_ok, R::bind_ok, R::remote_rkey},
                "after LOCAL_INV or SEND_WITH_INV, the window's next bind (IBV_WR_BIND_MW) "
                "gives an rkey other than the invalidated one",
                "the consumer chooses the key byte of a type 2 bind (ibv_bind_mw(3) bind_mw.rkey; "
                "IBTA leaves it to the consumer): rebinding with the invalidated key byte makes "
                "every copy of the invalidated rkey grant access again",
                false, rules::with_key<D>(rkey, key) != rkey, {rkey, key}});

  // ---- each profile is consistent ----
  for (int i = 0; i < kProfileCount; ++i) {
    const Profile p = profile(static_cast<ProfileId>(i));
    const E mr_ok = rules::mr_access_valid<D>(mr);
    // One set of flags per right, so that the three windows exist together.
    const E mr2 = var("mr_access_write"), mw2 = var("mw_access_write");
    const E mr3 = var("mr_access_atomic"), mw3 = var("mw_access_atomic");
    const auto grants_right = [&](const E& w, const E& m, uint32_t r) {
      return rules::mr_access_valid<D>(m) && bind_access_ok<D>(w, m, p) &&
             rules::grants<D>(w, Sym::lit(r));
    };
    ts.push_back({fmt::format("profile.{}.consistent", p.name),
                  {R::bind_mw_access, R::bind_mr_mw_bind, R::bind_local_write, R::bind_local_read,
                   R::remote_access},
                  fmt::format("under {}, the bind rules do not contradict each other: for each "
                              "remote right some MR and window grant it, and some window is refused",
                              p.name),
                  "", true,
                  grants_right(mw, mr, acc::REMOTE_READ) &&
                      grants_right(mw2, mr2, acc::REMOTE_WRITE) &&
                      grants_right(mw3, mr3, acc::REMOTE_ATOMIC) &&
                      !(mr_ok && bind_access_ok<D>(var("mw_access_refused"), mr, p)),
                  {mw, mr, mw2, mr2, mw3, mr3}});
  }
  return ts;
}

template std::vector<Theorem> theorems<Sym>();
template std::vector<Theorem> theorems<Broken<Sym>>();

const char* status_name(Status s) {
  switch (s) {
    case Status::Proved: return "proved";
    case Status::Counterexample: return "counterexample";
    case Status::Unknown: return "unknown";
  }
  return "unknown";
}

namespace {

// Collects the conjuncts of a conjunction, nested ones flattened.
void conjuncts(const E& e, std::vector<E>& out) {
  if (e.is_app() && e.decl().decl_kind() == Z3_OP_AND) {
    for (unsigned i = 0; i < e.num_args(); ++i) conjuncts(e.arg(i), out);
  } else {
    out.push_back(e);
  }
}

}  // namespace

Verdict prove(const Theorem& t, unsigned budget) {
  const auto start = std::chrono::steady_clock::now();
  Verdict v;
  v.theorem = &t;
  z3::solver s(Sym::ctx(), "QF_BV");
  z3::params p(Sym::ctx());
  p.set("rlimit", budget);
  s.set(p);
  // A claim for all values holds when each conjunct does; Z3 refutes the
  // conjuncts one at a time far faster than their conjunction (the two of
  // range.remote_inside_window: 0.3 s each, against 40 s together).
  std::vector<E> parts;
  if (t.exists) {
    parts.push_back(t.claim);
  } else {
    conjuncts(t.claim, parts);
  }
  z3::check_result r = z3::unsat;
  for (const E& part : parts) {
    s.push();
    s.add(t.exists ? part : !part);
    r = s.check();
    if (r != z3::unsat) break;  // a witness, a counterexample, or given up
    s.pop();
  }
  if (r == z3::unknown) {
    v.status = Status::Unknown;
  } else if ((r == z3::sat) == t.exists) {
    v.status = Status::Proved;
  } else {
    v.status = Status::Counterexample;
  }
  if (r == z3::sat) {
    const z3::model m = s.get_model();
    for (const E& x : t.shown) {
      const E val = m.eval(x, true);
      std::string text = val.is_bool() ? (val.is_true() ? "true" : "false")
                                       : fmt::format("{:#x}", val.get_numeral_uint64());
      v.values += fmt::format("{}{}={}", v.values.empty() ? "" : " ", x.to_string(), text);
    }
  }
  v.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return v;
}

}  // namespace mwc::smt
