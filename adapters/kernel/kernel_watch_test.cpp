#include "adapters/kernel/kernel_watch.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace mwc {
namespace {

TEST(KernelWatch, AReportGoesToTheTraceWhoseChildItNames) {
  const std::vector<kernel::KernelReport> reports = {
      {1139, "WARNING: at rxe_pool.c:255 __rxe_cleanup\n"},  // trace 2's child, long after it
      {0, "BUG: soft lockup\n"},                              // no process named
      {77, "WARNING: at other.c:1 f\n"}};                     // a process of no trace
  const std::map<int, size_t> child_of = {{1139, 2}, {1200, 5}};
  const auto in_guest = attribute(reports, child_of, 6, true);
  ASSERT_EQ(in_guest.size(), 3u);
  EXPECT_EQ(in_guest[0].trace, 2u);
  EXPECT_EQ(in_guest[0].account, "WARNING: at rxe_pool.c:255 __rxe_cleanup\n");
  EXPECT_EQ(in_guest[1].trace, 6u);  // the trace that ran as it was logged
  EXPECT_EQ(in_guest[2].trace, 6u);
  // Where other processes run, only what names a trace's child is its.
  const auto shared = attribute(reports, child_of, 6, false);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].trace, 2u);
}

TEST(KernelWatch, TheEndWaitsForChildrenStillInTheKernelWithinItsLimit) {
  // A trace's child that leaves soon is waited for and reaped; a child of
  // no trace is none of the watch's business.
  KernelWatch w(false);
  const pid_t quick = fork();
  ASSERT_GE(quick, 0);
  if (quick == 0) {
    usleep(300 * 1000);
    _exit(0);
  }
  const pid_t other = fork();
  ASSERT_GE(other, 0);
  if (other == 0) _exit(0);
  w.after_trace(0, quick);
  w.at_end(std::chrono::seconds(60), nullptr);
  int st = 0;
  EXPECT_EQ(waitpid(quick, &st, WNOHANG), -1);  // reaped by the watch
  EXPECT_EQ(waitpid(other, &st, 0), other);     // left to its parent
  // One that stays is left in the kernel once the limit passes.
  KernelWatch v(false);
  const pid_t stays = fork();
  ASSERT_GE(stays, 0);
  if (stays == 0) {
    pause();
    _exit(0);
  }
  v.after_trace(3, stays);
  v.at_end(std::chrono::seconds(0), nullptr);
  EXPECT_EQ(waitpid(stays, &st, WNOHANG), 0);  // still there
  kill(stays, SIGKILL);
  EXPECT_EQ(waitpid(stays, &st, 0), stays);
}

}  // namespace
}  // namespace mwc
