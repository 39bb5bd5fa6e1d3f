// Running a trace where a crash cannot reach mwcheck: in a child process.
// The child reports each op's outcome through a pipe as soon as it has it;
// the parent gives every op a deadline. A child that dies (a segfault in a
// provider library, say) ends the trace with CRASH at the op it was running,
// one that misses the deadline (a call stuck in the kernel) is killed and
// ends it with TIMEOUT; the ops after that are NOTRUN. The next trace starts
// in a fresh child either way.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "refmodel/outcome.hpp"

namespace mwc {

// What the child runs: sets up (returning false with `err` set when it
// cannot), then calls `emit` once per op, in order.
using ChildBody =
    std::function<bool(const std::function<void(const Outcome&)>& emit, std::string& err)>;

// What a note of a child killed at its deadline says before the deadline
// in ms ("op 7 did not finish within 11000 ms: ..."): findings read it back
// to say how long the harness waited.
inline constexpr std::string_view kDeadlinePassed = " did not finish within ";

struct IsolatedResult {
  bool setup_failed = false;
  int pid = 0;       // the child's process id (0: none started)
  std::string note;  // how the child ended when not normally, with its last stderr lines
};

// Runs `body` in a child process for a trace of `ops` ops; fills `out` with
// one outcome per op. Returns how it went.
IsolatedResult run_isolated(size_t ops, int op_deadline_ms, const ChildBody& body,
                            std::vector<Outcome>& out);

}  // namespace mwc
