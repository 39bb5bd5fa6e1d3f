// What the kernel reported (a WARNING, BUG or oops in its log) while a
// device ran a corpus, told to the trace it belongs to: the one whose
// child process the report names (a verb that warns long after the
// harness stopped waiting for it, as rxe's ibv_destroy_qp does after
// ~50 s, is still its trace's), else, where nothing else runs (the
// Soft-RoCE guest), the trace that ran as it was logged.
#pragma once
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "adapters/kernel/kmsg.hpp"
#include "adapters/kernel/oops.hpp"

namespace mwc {

// A kernel report and the trace (its index in the corpus) it belongs to.
struct TraceReport {
  size_t trace = 0;
  std::string account;
};

// Returns `reports` told to their traces: the one `child_of` maps the
// report's process to, else `current` when `take_unnamed`, else none
// (left out).
std::vector<TraceReport> attribute(const std::vector<kernel::KernelReport>& reports,
                                   const std::map<int, size_t>& child_of, size_t current, bool take_unnamed);

class KernelWatch {
 public:
  // Starts reading the kernel's log here; `take_unnamed` as attribute()
  // takes it.
  explicit KernelWatch(bool take_unnamed);
  // Returns whether the log can be read (root, /dev/kmsg).
  bool reading() const { return log_.open(); }
  // After trace `i` ran in child process `pid` (0: none): returns the
  // reports logged since the last call, told to their traces.
  std::vector<TraceReport> after_trace(size_t i, int pid);
  // Waits up to `limit` for the traces' children that are still in the
  // kernel (a verb the harness stopped waiting for) to leave it, reaping
  // them, and calls `alive` about every 5 s meanwhile; then returns the
  // reports logged since the last call. Waits not at all when none is left.
  std::vector<TraceReport> at_end(std::chrono::seconds limit, const std::function<void()>& alive);

 private:
  std::vector<TraceReport> read_now();
  kernel::KernelLog log_;
  bool take_unnamed_;
  std::map<int, size_t> child_of_;
  size_t current_ = 0;
};

}  // namespace mwc
