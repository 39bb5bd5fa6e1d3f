// The rules, each written once as a function template over a value domain D.
// The model instantiates them with Concrete (uint64_t/bool); the prover
// instantiates the same templates with Z3 expressions, so what is proved is
// what runs. A domain provides U64 and Bool types, lit(), ule(), ult() and
// ite(); the templates use only those and the operators & | ~ + - == != && ||
// ! that both uint64_t and z3::expr have. Every template returns through
// D::decide(RuleFn::<its name>, value): the identity for the model and the
// prover, compiled away; a test domain (refmodel/broken_rules.hpp) uses it to
// break one template on purpose and see theorems and properties fail.
#pragma once
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <utility>
#include <string_view>

#include "refmodel/layout.hpp"
#include "refmodel/profile.hpp"
#include "refmodel/rules.def"
#include "refmodel/vocab.hpp"

namespace mwc {

enum class Rule : uint8_t {
#define R(ident, id, src, stmt) ident,
  MWC_RULES(R)
#undef R
};
inline constexpr int kRuleCount = 0
#define R(ident, id, src, stmt) +1
    MWC_RULES(R)
#undef R
    ;

// Returns whether a device, not the model, gave an outcome this rule: what
// it was seen to do, which no rule of the model decides.
constexpr bool by_device(Rule r) { return r == Rule::observed || r == Rule::responder_refused; }

struct RuleDesc {
  std::string_view id;
  std::string_view source;
  std::string_view statement;
};
// Returns the rule registry, indexed by Rule.
std::span<const RuleDesc> rule_descs();
// Returns one rule's description.
const RuleDesc& rule_desc(Rule r);
// Returns the rule whose id ("inv.rkey") is `id`, if any.
std::optional<Rule> rule_from_id(std::string_view id);

// The rule templates below, one entry each: T(name).
#define MWC_RULE_TEMPLATES(T)                                                     \
  T(has_all) T(has_any) T(range_within) T(mr_access_valid) T(mr_allows_binding)   \
  T(mw_write_backed) T(mw_read_backed) T(mw_access_allowed) T(window_in_mr)       \
  T(grants) T(translate) T(remote_range_ok) T(atomic_aligned) T(inc_rkey) T(with_key)
enum class RuleFn : uint8_t {
#define T(name) name,
  MWC_RULE_TEMPLATES(T)
#undef T
};
inline constexpr int kRuleFnCount = 0
#define T(name) +1
    MWC_RULE_TEMPLATES(T)
#undef T
    ;
inline constexpr std::string_view kRuleFnNames[] = {
#define T(name) #name,
    MWC_RULE_TEMPLATES(T)
#undef T
};

// The concrete domain: the model runs on it.
struct Concrete : Plain {
  // Returns a rule template's value unchanged.
  template <class T>
  static constexpr T decide(RuleFn, T v) { return v; }
};

namespace rules {

// Returns whether every bit of `bits` is in `set`.
template <class D>
typename D::Bool has_all(typename D::U64 set, uint64_t bits) {
  return D::decide(RuleFn::has_all, (set & D::lit(bits)) == D::lit(bits));
}
// Returns whether any bit of `bits` is in `set`.
template <class D>
typename D::Bool has_any(typename D::U64 set, uint64_t bits) {
  return D::decide(RuleFn::has_any, (set & D::lit(bits)) != D::lit(0));
}

// Returns whether [a, a+len) lies inside [base, base+blen). Written on
// offsets so that no sum can wrap: a range that wraps past 2^64 is outside.
template <class D>
typename D::Bool range_within(typename D::U64 a, typename D::U64 len, typename D::U64 base,
                              typename D::U64 blen) {
  return D::decide(RuleFn::range_within,
                   D::ule(base, a) && D::ule(len, blen) && D::ule(a - base, blen - len));
}

// mr.access.local_write: returns whether an MR's access set is valid.
template <class D>
typename D::Bool mr_access_valid(typename D::U64 access) {
  return D::decide(RuleFn::mr_access_valid,
                   !has_any<D>(access, acc::REMOTE_WRITE | acc::REMOTE_ATOMIC) ||
                       has_all<D>(access, acc::LOCAL_WRITE));
}

// bind.mr_mw_bind (C10-73): returns whether the MR allows windows.
template <class D>
typename D::Bool mr_allows_binding(typename D::U64 mr_access) {
  return D::decide(RuleFn::mr_allows_binding, has_all<D>(mr_access, acc::MW_BIND));
}

// bind.local_write (C10-74): returns whether a window's write or atomic
// right is backed by LOCAL_WRITE on the MR.
template <class D>
typename D::Bool mw_write_backed(typename D::U64 mw_access, typename D::U64 mr_access) {
  return D::decide(RuleFn::mw_write_backed,
                   !has_any<D>(mw_access, acc::REMOTE_WRITE | acc::REMOTE_ATOMIC) ||
                       has_all<D>(mr_access, acc::LOCAL_WRITE));
}

// bind.local_read (knob local_read): returns whether a window's read right
// is backed by LOCAL_READ on the MR where the profile requires it.
template <class D>
typename D::Bool mw_read_backed(typename D::U64 mw_access, typename D::U64 mr_access,
                                uint8_t knob) {
  if (knob == alt::local_read::implicit)
    return D::decide(RuleFn::mw_read_backed, D::lit(0) == D::lit(0));
  return D::decide(RuleFn::mw_read_backed, !has_any<D>(mw_access, acc::REMOTE_READ) ||
                                               has_all<D>(mr_access, acc::LOCAL_READ));
}

// The access flags ibv_bind_mw(3) lets a window carry: its remote rights
// and ZERO_BASED.
inline constexpr uint32_t kWindowFlags =
    acc::REMOTE_WRITE | acc::REMOTE_READ | acc::REMOTE_ATOMIC | acc::ZERO_BASED;

// bind.mw_access (knob mw_access): returns whether a window may carry these
// access flags.
template <class D>
typename D::Bool mw_access_allowed(typename D::U64 mw_access, uint8_t knob) {
  const auto only_window = (mw_access & D::lit(~uint64_t{kWindowFlags})) == D::lit(0);
  const auto yes = D::lit(0) == D::lit(0);
  if (knob == alt::mw_access::any) return D::decide(RuleFn::mw_access_allowed, yes);
  if (knob == alt::mw_access::remote_only)
    return D::decide(RuleFn::mw_access_allowed, only_window);
  return D::decide(RuleFn::mw_access_allowed,
                   only_window && has_any<D>(mw_access, kWindowFlags & ~uint64_t{acc::ZERO_BASED}));
}

// The access checks of a bind with a non-zero length, in the order they
// decide: the model refuses with the first that fails, the theorems state
// their conjunction. Written once, here. A check that depends on a knob
// names it; the walker reads the knob only when it reaches the check.
template <class D>
struct BindAccessCheck {
  Rule rule;
  Result err;
  bool uses_knob;
  Knob knob;
  typename D::Bool (*holds)(typename D::U64 mw_access, typename D::U64 mr_access, uint8_t alt);
};
template <class D>
inline constexpr BindAccessCheck<D> kBindAccessChain[] = {
    {Rule::bind_mw_access, Result::kEINVAL, true, Knob::mw_access,
     [](typename D::U64 mw, typename D::U64, uint8_t a) { return mw_access_allowed<D>(mw, a); }},
    {Rule::bind_mr_mw_bind, Result::kEACCES, false, Knob::mw_access,
     [](typename D::U64, typename D::U64 mr, uint8_t) { return mr_allows_binding<D>(mr); }},
    {Rule::bind_local_write, Result::kEACCES, false, Knob::mw_access,
     [](typename D::U64 mw, typename D::U64 mr, uint8_t) { return mw_write_backed<D>(mw, mr); }},
    {Rule::bind_local_read, Result::kEACCES, true, Knob::local_read,
     [](typename D::U64 mw, typename D::U64 mr, uint8_t a) { return mw_read_backed<D>(mw, mr, a); }},
};

// bind.range (C10-75): returns whether a window [addr, addr+len) lies inside
// its MR, whose address space starts at iova.
template <class D>
typename D::Bool window_in_mr(typename D::U64 addr, typename D::U64 len, typename D::U64 mr_iova,
                              typename D::U64 mr_len) {
  return D::decide(RuleFn::window_in_mr, range_within<D>(addr, len, mr_iova, mr_len));
}

// remote.access: returns whether `granted` includes every right `required`.
template <class D>
typename D::Bool grants(typename D::U64 granted, typename D::U64 required) {
  return D::decide(RuleFn::grants, (granted & required) == required);
}

// Zero-based translation: returns the MR address a remote address names.
// A zero-based window takes offsets from its start; others take addresses.
template <class D>
typename D::U64 translate(typename D::U64 raddr, typename D::Bool zero_based,
                          typename D::U64 win_addr) {
  return D::decide(RuleFn::translate, D::ite(zero_based, win_addr + raddr, raddr));
}

// remote.range (knob remote_range): returns whether a remote access of len
// bytes at raddr through a window is inside the window and the MR (or, for
// mr_only, the MR alone).
template <class D>
typename D::Bool remote_range_ok(typename D::U64 raddr, typename D::U64 len,
                                 typename D::Bool zero_based, typename D::U64 win_addr,
                                 typename D::U64 win_len, typename D::U64 mr_iova,
                                 typename D::U64 mr_len, uint8_t knob) {
  const auto va = translate<D>(raddr, zero_based, win_addr);
  const auto in_mr = range_within<D>(va, len, mr_iova, mr_len);
  if (knob == alt::remote_range::mr_only) return D::decide(RuleFn::remote_range_ok, in_mr);
  const auto in_window =
      D::ite(zero_based, range_within<D>(raddr, len, D::lit(0), win_len),
             range_within<D>(raddr, len, win_addr, win_len));
  return D::decide(RuleFn::remote_range_ok, in_window && in_mr);
}

// What the remote-access checks read of the object an rkey names and of the
// request, as terms of domain D. For an MR, type2 is false and mr_live true.
template <class D>
struct RemoteFacts {
  typename D::Bool key_ok;   // a live MR of that rkey, or a bound window of it
  typename D::U64 pd;        // the target's PD
  typename D::Bool type2;    // a type 2 window...
  typename D::U64 owner;     // ...and the QP it is bound to
  typename D::U64 access;    // the rights the target grants
  typename D::Bool mr_live;  // a window's MR is still the registration it was bound to
  typename D::U64 qp, qp_pd, right;  // the request: its QP, that QP's PD, the right it needs
};
// The checks the state decides a remote access by, in the order they
// decide: the model refuses with the first that fails (the request's own
// range and alignment come after it), the theorems state their conjunction.
// Written once, here.
template <class D>
struct RemoteCheckLink {
  Rule rule;
  typename D::Bool (*holds)(const RemoteFacts<D>& f);
};
template <class D>
inline constexpr RemoteCheckLink<D> kRemoteChain[] = {
    {Rule::remote_rkey, [](const RemoteFacts<D>& f) { return f.key_ok; }},
    {Rule::remote_pd, [](const RemoteFacts<D>& f) { return f.pd == f.qp_pd; }},
    {Rule::remote_type2_qp, [](const RemoteFacts<D>& f) { return !f.type2 || f.owner == f.qp; }},
    {Rule::remote_access, [](const RemoteFacts<D>& f) { return grants<D>(f.access, f.right); }},
    {Rule::remote_mr_live, [](const RemoteFacts<D>& f) { return f.mr_live; }},
};

// Calls stop(link) on each link of a constexpr chain in order until it
// returns true; returns whether one did. Unrolled, so that the model's
// walks call each link's functions directly and inline them.
template <const auto& Chain, class F, size_t... I>
[[gnu::always_inline]] inline bool walk(F&& stop, std::index_sequence<I...>) {
  return (stop(Chain[I]) || ...);
}
template <const auto& Chain, class F>
[[gnu::always_inline]] inline bool walk(F&& stop) {
  return walk<Chain>(stop, std::make_index_sequence<std::size(Chain)>{});
}

// Returns the rule of the first link of kRemoteChain that facts f fail, or
// remote_ok: the model's walk (a domain whose Bool is bool).
template <class D>
[[gnu::always_inline]] inline Rule first_remote_refusal(const RemoteFacts<D>& f) {
  Rule fail = Rule::remote_ok;
  walk<kRemoteChain<D>>([&](const RemoteCheckLink<D>& c) {
    if (c.holds(f)) return false;
    fail = c.rule;
    return true;
  });
  return fail;
}
// Returns whether facts f pass every link of kRemoteChain: the theorems'
// reading of the chain.
template <class D>
typename D::Bool remote_chain_ok(const RemoteFacts<D>& f) {
  auto all = D::lit(0) == D::lit(0);
  for (const auto& link : kRemoteChain<D>) all = all && link.holds(f);
  return all;
}

// remote.atomic_align: returns whether an atomic's address is 8-aligned.
template <class D>
typename D::Bool atomic_aligned(typename D::U64 va) {
  return D::decide(RuleFn::atomic_aligned, (va & D::lit(7)) == D::lit(0));
}

// bind.ok: returns ibv_inc_rkey(rkey): the key byte advances, wrapping at 256,
// and the 24-bit index stays.
template <class D>
typename D::U64 inc_rkey(typename D::U64 rkey) {
  return D::decide(RuleFn::inc_rkey, layout::with_key_byte<D>(rkey, rkey + D::lit(1)));
}

// bind.ok (IBV_WR_BIND_MW): returns rkey with its key byte replaced.
template <class D>
typename D::U64 with_key(typename D::U64 rkey, typename D::U64 key) {
  return D::decide(RuleFn::with_key, layout::with_key_byte<D>(rkey, key));
}

}  // namespace rules
}  // namespace mwc
