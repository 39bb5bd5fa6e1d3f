// Rule coverage: which branches of the rules a fuzzing run reached. A
// branch is a rule deciding an outcome (its immediate return and its
// completion status) under the alternatives of the knobs it consulted; a
// refusal branch is one whose outcome is an errno or an error completion.
// Reaching a new branch is new coverage: `mwcheck fuzz` keeps the input
// that did, libFuzzer sees it through extra counters (rule_counters.hpp).
//
// Which branches exist is what the conformance corpus (built in) reaches
// under each profile: a campaign's table says which of those under its
// profiles it never reached, which the corpus reaches only under other
// profiles (a knob alternative of theirs decides, at that op or an earlier
// one: no input of this campaign can), and how many it reached beyond them.
// A bind refused after posting shows at the bind as its rule with an OK
// return (the error comes with the completion): a branch all the same.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "refmodel/outcome.hpp"
#include "refmodel/profile.hpp"

namespace mwc::fuzz {

// rule, return, completion status and consulted knobs' alternatives, packed.
using Branch = uint64_t;

// Returns the branch an outcome of the model under profile p took.
Branch branch_of(const Outcome& o, const Profile& p);
// Returns the rule that decided a branch.
Rule branch_rule(Branch b);
// Returns whether a branch refuses: an errno, or an error completion (an op
// skipped because it names no live object is no rule's refusal).
bool is_refusal(Branch b);
// Returns a branch's outcome and the knob alternatives it took:
// "EBUSY [dereg_bound=ebusy]".
std::string branch_text(Branch b);

// The branches a run reached.
class RuleCoverage {
 public:
  // Notes the outcomes of one trace under profile p; returns how many of
  // their branches are new.
  size_t add(std::span<const Outcome> outcomes, const Profile& p);
  bool reached(Branch b) const { return seen_.count(b) != 0; }
  // Returns the branches reached, sorted.
  std::vector<Branch> branches() const;
  size_t size() const { return seen_.size(); }
  // Returns how many refusal branches were reached.
  size_t refusals() const { return refusals_; }

 private:
  std::unordered_set<Branch> seen_;
  size_t refusals_ = 0;
};

// Returns the branches the built-in conformance corpus reaches under
// profile p, sorted.
std::vector<Branch> corpus_branches(const Profile& p);

// Returns the rule-coverage table of a run whose model sides follow
// `profiles`: per rule, the branches the corpus shows under them and how
// many the run reached, each one it never reached, those the corpus shows
// only under other profiles (naming them), and how many it reached beyond
// the corpus; a summary line ends it.
std::string coverage_table(const RuleCoverage& cov, std::span<const Profile> profiles);

}  // namespace mwc::fuzz
