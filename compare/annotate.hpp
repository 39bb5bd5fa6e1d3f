// A trace printed back with what happened: a run is a golden file.
#pragma once
#include <string>
#include <vector>

#include "refmodel/trace.hpp"

namespace mwc {

// Returns the trace's text with each op's observed outcome after `=>`, its
// comments, and a `# ^ MISMATCH` line under each op whose outcome differs
// from what the trace expects under `column` (labelled `who`).
std::string annotate(const Trace& t, const std::vector<Outcome>& outcomes, int column, const std::string& who);

}  // namespace mwc
