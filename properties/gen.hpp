// rapidcheck generators driven by the op table (refmodel/ops.def): an op is
// an op code and, for each of its fields, a value chosen by the field's kind
// and range. No op is spelled out here; a new op is generated as soon as it
// is in the table.
#pragma once
#include <ostream>
#include <vector>

#include <rapidcheck.h>

#include "refmodel/profile.hpp"
#include "refmodel/trace.hpp"

namespace mwc {
// rapidcheck prints ops in counterexamples as trace text.
void showValue(const Op& op, std::ostream& os);
}  // namespace mwc

namespace mwc::props {

// The caps of every generated trace: few objects, so ops meet each other.
Caps small_caps();
// Returns the ops of a fixed prologue (a buffer, PDs, MRs, windows of both
// types, QPs) that generated ops start from, so most of them do something.
const std::vector<Op>& prologue();
// Returns a generator of one op of the op table under small_caps().
rc::Gen<Op> gen_op();
// Returns a generator of op sequences (to follow the prologue).
rc::Gen<std::vector<Op>> gen_ops();
// Returns prologue() followed by ops, as a trace with small_caps().
Trace with_prologue(const std::vector<Op>& ops);
// Returns one of the profiles, generated (call inside a property).
Profile any_profile();

}  // namespace mwc::props
