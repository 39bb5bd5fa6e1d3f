// Delta debugging of traces: the smallest trace found that still fails.
#pragma once
#include <cstddef>
#include <functional>

#include "refmodel/trace.hpp"

namespace mwc {

struct MinimizeStats {
  size_t tests = 0;  // calls of the predicate
  size_t ops_before = 0, ops_after = 0;
};

// Returns a trace for which `still_fails` holds, made of a subset of t's ops
// (ddmin, then one op at a time until no single op can go), then with
// handles renumbered in order of first use and fields set back to their
// defaults where the failure survives it. Expectations follow their ops;
// comments are dropped. Handles keep naming the same objects: removing an op
// that creates one makes later uses skip, as the trace semantics say. If
// `still_fails(t)` is false, returns t unchanged. At most `max_tests` calls.
Trace minimize(const Trace& t, const std::function<bool(const Trace&)>& still_fails,
               size_t max_tests = 20000, MinimizeStats* stats = nullptr);

// Returns the trace made of t's ops at the given increasing indices, with
// their expectations; comments and source lines are dropped.
Trace keep_ops(const Trace& t, const std::vector<uint32_t>& keep);

}  // namespace mwc
