// A recorded program's events as a trace: its objects become handles, its
// memory becomes buffers, its calls become ops, and what each call returned
// to the program becomes the op's expected outcome.
//
// The trace speaks of QPs each with a connected peer; a program has pairs
// of QPs connected to each other. An RDMA read, write, atomic or
// SEND_WITH_INV that QP A posts to QP B of the same program is B's peer
// acting on B (peer_read qB ...), with the status of A's completion as its
// outcome; A's receive completions and post_recv are the peer's business
// and leave no op. What a trace cannot say (a QP connected outside the
// program, UD, an MR at another iova...) becomes a comment naming the log
// line, never a silent drop.
#pragma once
#include <string>
#include <vector>

#include "record/event_log.hpp"
#include "refmodel/trace.hpp"

namespace mwc::record {

struct Recording {
  Trace trace;             // expected outcomes: fallback clauses, what the program saw
  size_t expected = 0;     // ops that carry an expected outcome
  std::vector<std::string> skipped;  // what could not be recorded, and why
};

// Returns the trace of a recording's events (`source` names the log in the
// trace's header comment).
Recording to_trace(const std::vector<Event>& events, const std::string& source);

}  // namespace mwc::record
