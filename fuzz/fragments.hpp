// Scenario fragments: the runs of dependent ops a rule's refusal branch
// needs before it can be reached, inserted as one unit: bind then access,
// bind then invalidate then access, bind then deregister (or reregister)
// the MR then access, bind then bind again then access; all through one
// window, the objects they need created first when the state has none.
// Which ops can take each step comes from the op table (the kinds of
// their fields); every field not pinned to the scenario's window and MR is
// chosen by the guide (fuzz/guide.hpp) on the state the steps before it
// left, so an access lands at the bounds of the binding just made.
#pragma once
#include <cstddef>
#include <vector>

#include "fuzz/rng.hpp"
#include "refmodel/trace.hpp"

namespace mwc::fuzz {

// Returns the ops of one fragment to insert before t.ops[at] (at most
// `room` ops; handles inside t's caps).
std::vector<Op> fragment(const Trace& t, size_t at, size_t room, Rng& rng);

}  // namespace mwc::fuzz
