// In-process differential fuzzing of two backends, without libFuzzer: the
// structure-aware mutator over a pool of traces that grows with every input
// reaching a new (op, rule of A, rule of B) triple or a new rule branch
// (rule, outcome, knob alternatives: rule_coverage.hpp). A divergence no knob
// explains is a finding, minimized to a small trace that still shows it.
// Deterministic: the same backends, seeds and options run the same inputs
// in the same order; time limits only decide where the run stops.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "adapters/divergence.hpp"
#include "fuzz/rule_coverage.hpp"

namespace mwc::fuzz {

struct CampaignOptions {
  uint64_t seed = 1;
  uint64_t runs = 0;      // stop after this many inputs (0: no limit)
  double seconds = 0;     // stop after this much wall time (0: no limit)
  bool keep_going = false;  // go on after the first finding
  size_t max_ops = 64;    // longest trace the mutator makes
  // Minimize each finding before reporting it. Off where the caller shrinks
  // (a device campaign shrinks on the host, rebooting the guest when a
  // candidate kills it; minimizing in the guest would die in the same
  // candidate round after round).
  bool minimize = true;
};

struct Finding {
  uint64_t run = 0;        // the input that showed it, counted from 1
  double seconds = 0;      // wall time from the start until it was seen
  Trace trace;             // minimized (unless the options say not)
  Divergence divergence;   // on that trace
};

struct CampaignStatus {
  uint64_t runs = 0;
  double seconds = 0;
  int ops_covered = 0;     // op codes that ran (not skipped) on either side
  int rules_covered = 0;   // rules that decided some outcome on either side
  size_t pool = 0;
  size_t findings = 0;
  size_t branches = 0;     // rule branches reached (rule_coverage.hpp), both sides
  size_t refusals = 0;     // of which refusals
  std::vector<bool> rules_seen;  // by Rule
  RuleCoverage coverage;         // the branches, once the campaign ends
  // Returns executions per second so far.
  double execs_per_second() const { return seconds > 0 ? runs / seconds : 0; }
};

struct CampaignHooks {
  std::function<void(const CampaignStatus&)> progress;  // about once a second
  std::function<void(const Finding&)> finding;          // each new finding
};

// Fuzzes a against b from `seeds` (each run first as it is) and returns the
// findings, at most one per (op, rule of A, rule of B) signature; `status`
// ends with the final counts.
std::vector<Finding> run_campaign(Backend& a, Backend& b, const std::vector<Trace>& seeds,
                                  const CampaignOptions& o, const CampaignHooks& hooks,
                                  CampaignStatus& status);

}  // namespace mwc::fuzz
