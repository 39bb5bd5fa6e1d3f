// Rule coverage for libFuzzer: each branch an input reaches (rule,
// outcome, knob alternatives; rule_coverage.hpp) bumps one of libFuzzer's
// extra counters, so an input reaching a new branch is new coverage to it as
// much as a new edge of the code is. The counters live in the section
// libFuzzer reads (__libfuzzer_extra_counters); without libFuzzer nothing
// reads them. The branches are also kept, for the table a run prints at exit.
#pragma once
#include <span>

#include "fuzz/rule_coverage.hpp"

namespace mwc::fuzz {

// Counts the branches of one trace's outcomes under profile p.
void count_branches(std::span<const Outcome> outcomes, const Profile& p);
// Prints the table of every branch counted so far, under `profiles`, to
// stderr when the process exits (once, whatever the number of calls).
void print_table_at_exit(std::span<const Profile> profiles);

}  // namespace mwc::fuzz
