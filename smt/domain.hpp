// The symbolic domain: the rule templates of refmodel/rules.hpp
// instantiated on Z3 terms. U64 is a 64-bit bit-vector, Bool a Boolean;
// comparisons are unsigned (z3's < on bit-vectors is signed).
#pragma once
#include <cstdint>

#include <z3++.h>

#include "refmodel/rules.hpp"

namespace mwc::smt {

struct Sym {
  using U64 = z3::expr;
  using Bool = z3::expr;
  // Returns the context the terms of this thread live in (the innermost
  // Fresh scope's, else a default one).
  static z3::context& ctx() {
    static thread_local z3::context fallback;
    return current() ? *current() : fallback;
  }
  static z3::context*& current() {
    static thread_local z3::context* c = nullptr;
    return c;
  }
  // A fresh context while alive: the same queries then give the same models
  // however many ran before (Z3's models depend on the context's history).
  class Fresh {
   public:
    Fresh() : saved_(current()) { current() = &c_; }
    ~Fresh() { current() = saved_; }
    Fresh(const Fresh&) = delete;
    Fresh& operator=(const Fresh&) = delete;

   private:
    z3::context c_;
    z3::context* saved_;
  };
  static U64 lit(uint64_t v) { return ctx().bv_val(static_cast<uint64_t>(v), 64); }
  static Bool ule(const U64& a, const U64& b) { return z3::ule(a, b); }
  static Bool ult(const U64& a, const U64& b) { return z3::ult(a, b); }
  template <class T>
  static T ite(const Bool& c, const T& a, const T& b) { return z3::ite(c, a, b); }
  // Returns a rule template's value unchanged.
  template <class T>
  static T decide(RuleFn, T v) { return v; }
};

}  // namespace mwc::smt
