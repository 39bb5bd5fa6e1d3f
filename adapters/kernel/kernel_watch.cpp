#include "adapters/kernel/kernel_watch.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <thread>
#include <vector>

namespace mwc {

std::vector<TraceReport> attribute(const std::vector<kernel::KernelReport>& reports,
                                   const std::map<int, size_t>& child_of, size_t current, bool take_unnamed) {
  std::vector<TraceReport> out;
  for (const auto& r : reports) {
    const auto it = r.pid > 0 ? child_of.find(r.pid) : child_of.end();
    if (it != child_of.end()) out.push_back({it->second, r.account});
    else if (take_unnamed) out.push_back({current, r.account});
  }
  return out;
}

KernelWatch::KernelWatch(bool take_unnamed) : take_unnamed_(take_unnamed) {}

std::vector<TraceReport> KernelWatch::read_now() {
  return attribute(kernel::kernel_reports(log_.read_new()), child_of_, current_, take_unnamed_);
}

std::vector<TraceReport> KernelWatch::after_trace(size_t i, int pid) {
  if (pid > 0) child_of_[pid] = i;
  current_ = i;
  return read_now();
}

std::vector<TraceReport> KernelWatch::at_end(std::chrono::seconds limit, const std::function<void()>& alive) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto said = start;
  // The traces' children, reaped as they leave (ECHILD: reaped before;
  // no other child of this process is touched).
  std::vector<int> left;
  for (const auto& [pid, trace] : child_of_) left.push_back(pid);
  for (;;) {
    std::erase_if(left, [](int pid) {
      int st = 0;
      pid_t p;
      do p = waitpid(pid, &st, WNOHANG); while (p < 0 && errno == EINTR);
      return p != 0;
    });
    if (left.empty() || Clock::now() - start >= limit) break;
    if (Clock::now() - said >= std::chrono::seconds(5)) {
      said = Clock::now();
      if (alive) alive();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return read_now();
}

}  // namespace mwc
