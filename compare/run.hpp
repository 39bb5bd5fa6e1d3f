// The reference model's run of a trace: the one place a trace is run on
// the model outside the hot paths (replay and the fuzzers keep their own
// loops for speed).
#pragma once
#include <vector>

#include "refmodel/model.hpp"

namespace mwc {

// Returns the outcome of every op of `t` on a fresh model under `p` (with
// `mutant`'s bug switched on, if any).
std::vector<Outcome> run_model(const Trace& t, const Profile& p, Mutant mutant = Mutant::none);

}  // namespace mwc
