// Concrete traces out of the prover: for every pair of profiles and every
// knob on which they differ, a trace on which the two profiles diverge
// (numbers from Z3 models of the rule templates where a rule decides), and
// the traces of the known counterexamples of theorems.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "refmodel/profile.hpp"
#include "refmodel/trace.hpp"

namespace mwc::smt {

struct Witness {
  ProfileId a{}, b{};
  Knob knob{};
  std::string file;  // "ibta-verbs.bind_errors.mwt"
  Trace trace;       // expectations: a's outcomes, with a clause for b's where they differ
};

// Returns a distinguishing trace for every pair of profiles and every knob
// on which they differ, in knobs.def and profile order.
std::vector<Witness> distinguishing_witnesses();

struct CounterexampleTrace {
  std::string theorem;  // the theorem it refutes
  std::string file;
  ProfileId profile{};  // a profile under which the trace shows it
  Trace trace;
};
// Returns a trace for each known counterexample of theorems<Sym>().
std::vector<CounterexampleTrace> counterexample_traces();

// Returns the first op where two profiles' outcomes differ, if any.
std::optional<size_t> first_divergence(const Trace& t, const Profile& a, const Profile& b);
// Returns whether knob k alone makes the trace diverge: from a's side
// (a against a with b's alternative) or from b's.
bool knob_alone_diverges(const Trace& t, ProfileId a, ProfileId b, Knob k);

}  // namespace mwc::smt
