// The structure-aware mutator: edits a trace's ops (insert, delete,
// duplicate, swap, tweak a field) and crosses two traces over, drawing every
// op and value from the op table, so mutants stay valid traces whose handles
// name objects of the trace's caps. Half the edits are rule-aware: an op or
// a field chosen by the state before it (guide.hpp), or a scenario inserted
// whole (fragments.hpp). Deterministic: the same Rng state makes the same
// edits.
#pragma once
#include <cstdint>

#include "fuzz/rng.hpp"
#include "refmodel/trace.hpp"

namespace mwc::fuzz {

// Returns a value for one field of an op, biased towards the values that
// decide rules (edges of buffers and windows, flag sets, current rkeys).
Arg random_field(const FieldDesc& f, const Caps& caps, Rng& rng);
// Returns an op of a random code with random fields.
Op random_op(const Caps& caps, Rng& rng);

// Applies one to four structure-aware edits to t's ops (half of them
// rule-aware), keeping at most max_ops ops.
void mutate(Trace& t, Rng& rng, size_t max_ops);
// Returns a trace made of a prefix of a and a run of b's ops (caps: the
// larger of each), at most max_ops long.
Trace crossover(const Trace& a, const Trace& b, Rng& rng, size_t max_ops);

}  // namespace mwc::fuzz
