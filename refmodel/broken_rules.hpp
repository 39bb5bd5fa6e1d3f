// Tests only: a value domain in which one rule template can be broken on
// purpose, to show that the theorems (smt/) and properties (properties/)
// notice. Broken<Base> is Base except that the template named by `which`
// returns a wrong value: a Bool comes back negated, a U64 with bit 0 flipped.
//
// Why a domain: every template already returns through D::decide(), which
// is the identity in Concrete and compiles away, so the normal model and
// prover pay nothing. The model runs on Broken<Concrete> only in a test
// build of model.cpp (MWCHECK_BREAKABLE_MODEL, its own library and inline
// namespace); the prover instantiates its theorems on Broken<its domain>.
#pragma once
#include <cstdint>
#include <type_traits>

#include "refmodel/rules.hpp"

namespace mwc {

template <class Base>
struct Broken : Base {
  // The broken template (an index of RuleFn), or -1 for none.
  static inline thread_local int which = -1;

  // Returns v, or a wrong value when f is the broken template.
  template <class T>
  static T decide(RuleFn f, T v) {
    if (static_cast<int>(f) != which) return v;
    if constexpr (std::is_same_v<T, bool>) return !v;
    else if constexpr (std::is_integral_v<T>) return v ^ T{1};
    else return v.is_bool() ? !v : v ^ Base::lit(1);  // a solver's term
  }
};

// Breaks one template (or none, -1) while alive; restores on exit.
template <class Domain>
class BreakRule {
 public:
  explicit BreakRule(int which) : saved_(Domain::which) { Domain::which = which; }
  ~BreakRule() { Domain::which = saved_; }
  BreakRule(const BreakRule&) = delete;
  BreakRule& operator=(const BreakRule&) = delete;

 private:
  int saved_;
};

}  // namespace mwc
