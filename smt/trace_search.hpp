// Proofs over whole traces: every op sequence up to K verbs within a scope
// (how many PDs, MRs, windows and QPs), run on the model itself, with the
// security invariants of trace_invariants.hpp checked after every op.
//
// How: a breadth-first walk of the model's states (each reached state is
// expanded once, at its shortest depth, so the first counterexample found
// is a shortest one). The ops that change state are enumerated, their
// handles by relation (objects made in order, so renamings are not walked
// twice) and their values at the bounds the rules compare (see
// trace_search.cpp, kValues). Remote accesses are not enumerated: after
// every state, each (QP, rkey, right) is asked of the model's own access
// check (Model::check_remote) with the address and length as Z3 terms,
// and Z3 says whether some access is granted that the invariants forbid.
// A granted access changes no state, and a refused one only moves QPs to
// Error, which grants nothing more; so a counterexample ends with the
// access, and K counts it.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "refmodel/profile.hpp"
#include "refmodel/trace.hpp"
#include "smt/trace_invariants.hpp"

namespace mwc::smt {
#ifdef MWCHECK_BREAKABLE_MODEL
inline namespace breakable {
#endif

// How many objects of each kind a trace may make, and its one buffer.
struct Scope {
  uint32_t pd = 2, mr = 2, mw = 2, qp = 2;
  uint64_t buf = 4096;  // bytes of b0, declared before the verbs
};
// Parses "pd=2,mr=2,mw=2,qp=2" (any subset); returns an error message, or
// an empty string.
std::string parse_scope(std::string_view text, Scope& s);
// Returns the scope as parse_scope reads it.
std::string scope_text(const Scope& s);

struct Counterexample {
  Invariant invariant{};
  std::string what;  // what the last op broke, in words
  size_t verbs = 0;  // how many verbs it takes (b0 and a last poll_cq not counted)
  Trace trace;       // b0, then the verbs; expectations: the yardstick's and each profile's
};

struct SearchStats {
  uint64_t transitions = 0;   // ops run on the model
  uint64_t states = 0;        // distinct states expanded
  uint64_t probes = 0;        // (state, QP, rkey, right) asked
  uint64_t solver_calls = 0;  // Z3 queries (others answered from a cache)
  double seconds = 0;
  int depth = 0;              // every trace up to this many verbs was checked
};

struct SearchResult {
  std::array<std::optional<Counterexample>, kInvariantCount> cex;  // shortest, per invariant
  SearchStats stats;
};

// Called after each depth: verbs done, states so far, transitions so far.
using SearchProgress = std::function<void(int depth, const SearchStats&)>;

// Returns, for profile p, each invariant's shortest counterexample within
// K verbs in scope s, or none (it holds for all those traces).
// `judge`: the normative profile the counterexamples' expectations come
// from.
SearchResult search_traces(const Profile& p, ProfileId judge, int k, const Scope& s,
                           const SearchProgress& progress = {});

// Returns the text that says how values are chosen (printed with results).
std::string_view value_choices();

#ifdef MWCHECK_BREAKABLE_MODEL
}  // namespace breakable
#endif
}  // namespace mwc::smt
