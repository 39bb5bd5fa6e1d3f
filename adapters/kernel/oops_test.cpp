#include "adapters/kernel/oops.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mwc::kernel {
namespace {

// Two runs of the same crash (6.1's __rxe_put on LOCAL_INV): times, PIDs,
// registers, user space's RIP, line ends and unreliable frames differ.
constexpr const char* kRunA = R"([    2.767667] BUG: kernel NULL pointer dereference, address: 0000000000000138
[    2.767667] #PF: supervisor write access in kernel mode
[    2.767667] CPU: 1 PID: 103 Comm: repro Not tainted 6.1.0-56-amd64 #1  Debian 6.1.192-2
[    2.767667] RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]
[    2.767667] RSP: 0018:ffffc9000040b6d8 EFLAGS: 00000206
[    2.767667] Call Trace:
[    2.767667]  <TASK>
[    2.767667]  rxe_invalidate_mw+0x7d/0xe0 [rdma_rxe]
[    2.767667]  rxe_requester+0x705/0xe40 [rdma_rxe]
[    2.767667]  ? lookup_get_idr_uobject.part.0+0x69/0x80 [ib_uverbs]
[    2.767667]  ib_uverbs_post_send+0x6a3/0x730 [ib_uverbs]
[    2.767667] RIP: 0033:0x7f255a2b9350
[    2.767667] RSP: 002b:00007ffd3bd6ecd8
[    2.767667]  </TASK>
[    2.767667] RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]
[    2.767667] Kernel panic - not syncing: Fatal exception in interrupt
[    2.767667] Kernel Offset: disabled
)";
constexpr const char* kRunB = R"([    5.593114] BUG: kernel NULL pointer dereference, address: 0000000000000138
[    5.593880] #PF: supervisor write access in kernel mode
[    5.594432] CPU: 1 PID: 112 Comm: python3 Not tainted 6.1.0-56-amd64 #1  Debian 6.1.192-2
[    5.594432] RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]
[    5.594432] RSP: 0018:ffffc900003f36d8 EFLAGS: 00000202
[    5.594432] Call Trace:
[    5.594432]  <TASK>
[    5.594432]  rxe_invalidate_mw+0x7d/0xe0 [rdma_rxe]
[    5.594432]  rxe_requester+0x705/0xe40 [rdma_rxe]
[    5.594432]  ib_uverbs_post_send+0x6a3/0x730 [ib_uverbs]
[    5.594432]  ? update_load_avg+0x615/0x780
[    5.594432] RIP: 0033:0x7f56e8f1f350
[    5.594432]  </TASK>
[    5.594432] Kernel panic - not syncing: Fatal exception in interrupt
)";

TEST(Oops, TwoRunsOfOneCrashGiveTheSameLines) {
  EXPECT_EQ(oops_summary(kRunA), oops_summary(kRunB));
  EXPECT_EQ(oops_summary(kRunA),
            "BUG: kernel NULL pointer dereference, address: 0000000000000138\n"
            "RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]\n"
            "Call Trace:\n"
            " rxe_invalidate_mw+0x7d/0xe0 [rdma_rxe]\n"
            " rxe_requester+0x705/0xe40 [rdma_rxe]\n"
            " ib_uverbs_post_send+0x6a3/0x730 [ib_uverbs]\n"
            "Kernel panic - not syncing: Fatal exception in interrupt\n");
}

TEST(Oops, AConsoleWithoutAnOopsLosesOnlyItsTimestamps) {
  EXPECT_EQ(oops_summary("[   12.5] rcu: INFO: rcu_preempt self-detected stall\nplain line\n"),
            "rcu: INFO: rcu_preempt self-detected stall\nplain line\n");
  EXPECT_EQ(without_timestamp("[x] not a time"), "[x] not a time");
  EXPECT_EQ(without_timestamp("[    1.000000] a"), "a");
}

TEST(Oops, TheKernelsLinesAreThoseWithItsTimestamp) {
  // What the Soft-RoCE guest's console shows: a guest whose kernel reports
  // it again and again has no progress in those lines (vm.cpp).
  for (const char* k : {"[   22.512345] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [mwcheck:81]",
                        "[    1.000000] a", "[12.5] rcu: INFO: rcu_preempt self-detected stall", "[0]"})
    EXPECT_TRUE(is_kernel_line(k)) << k;
  for (const char* p : {"MWCHECK-OP 12", "MWCHECK-ALIVE", "corpus/00001-a.mwt:3:7: error: x", "", "[]",
                        "[] a", "[x] not a time", "[ . ] a", "plain [1.0] later"})
    EXPECT_FALSE(is_kernel_line(p)) << p;
}

TEST(Oops, LastLinesCountsLinesWhateverTheConsoleEndsWith) {
  EXPECT_EQ(last_lines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(last_lines("a\nb\nc", 2), "b\nc");
  EXPECT_EQ(last_lines("a\nb\n", 2), "a\nb\n");
  EXPECT_EQ(last_lines("\nabc\n", 5), "\nabc\n");
  EXPECT_EQ(last_lines("abc", 1), "abc");
  EXPECT_EQ(last_lines("a\nb\n", 0), "");
  EXPECT_EQ(last_lines("", 30), "");
  EXPECT_EQ(last_lines("\n", 30), "\n");
}

TEST(Oops, AGuestThatPrintedNothingHasAnEmptyAccount) {
  // An emulator that died at once, or a boot silent until the harness gave
  // up on it: the run goes on to boot again, so its account must not fail.
  EXPECT_EQ(console_account(""), "");
  EXPECT_EQ(console_account("\n"), "\n");
  EXPECT_EQ(console_account("[    0.5] Oops\n"), "Oops\n");
}

TEST(Oops, AnAccountStartsAtTheOopsOrKeepsTheLastThirtyLines) {
  std::string console;
  for (int i = 0; i < 40; ++i) console += "[    1.0] line " + std::to_string(i) + "\n";
  std::string last;
  for (int i = 10; i < 40; ++i) last += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(console_account(console), last);
  EXPECT_EQ(console_account(console + kRunA), oops_summary(kRunA));
}

TEST(Oops, AnAccountStartsWhereTheSummarySeesAnOops) {
  // "kernel BUG at" opens an oops for both: a dump longer than thirty
  // lines keeps its headline.
  std::string dump = "[    3.0] kernel BUG at drivers/infiniband/sw/rxe/rxe_pool.c:254!\r\n"
                     "[    3.0] RIP: 0010:rxe_cleanup+0x20/0x30 [rdma_rxe]\r\n";
  for (int i = 0; i < 40; ++i) dump += "[    3.0] R" + std::to_string(i) + ": 0000000000000000\r\n";
  const std::string account = console_account("[    1.0] booted\n" + dump);
  EXPECT_EQ(account.substr(0, account.find('\n')), "kernel BUG at drivers/infiniband/sw/rxe/rxe_pool.c:254!");
  EXPECT_EQ(account, oops_summary(dump));
  // After the reporter's name too: a soft lockup's stuck function and trace.
  EXPECT_EQ(oops_summary("[   30.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [repro:103]\n"
                         "[   30.0] RIP: 0010:rxe_completer+0x1a/0x900 [rdma_rxe]\n"
                         "[   30.0] Call Trace:\n"
                         "[   30.0]  rxe_do_task+0x5e/0xb0 [rdma_rxe]\n" + std::string(40, '\n')),
            "watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [repro:103]\n"
            "RIP: 0010:rxe_completer+0x1a/0x900 [rdma_rxe]\n"
            "Call Trace:\n"
            " rxe_do_task+0x5e/0xb0 [rdma_rxe]\n");
  // A mark inside a line opens nothing: the last thirty lines, as without one.
  std::string plain = "[    1.0] echo Oops from a test\n", thirty;
  for (int i = 0; i < 40; ++i) plain += "line\n";
  for (int i = 0; i < 30; ++i) thirty += "line\n";
  EXPECT_EQ(console_account(plain), thirty);
}

// A report's site is its headline, the same whichever CPU and process; a
// call trace through do_exit (a frame of its own, not a name that ends in
// it) says the report came as the process exited.
TEST(Oops, AReportSaysWhereAndWhetherItCameAtTheProcesssExit) {
  const char* log =
      "[   70.1] WARNING: CPU: 1 PID: 1139 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]\n"
      "[   70.1] Call Trace:\n"
      "[   70.1]  rxe_destroy_qp+0x26/0x30 [rdma_rxe]\n"
      "[   70.1]  do_exit+0x381/0xb10\n"
      "[   70.1] ---[ end trace 0000000000000000 ]---\n"
      "[   80.2] WARNING: CPU: 0 PID: 1201 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]\n"
      "[   80.2] Call Trace:\n"
      "[   80.2]  rxe_destroy_qp+0x26/0x30 [rdma_rxe]\n"
      "[   80.2]  ib_uverbs_ioctl+0xbe/0x130 [ib_uverbs]\n"
      "[   80.2]  __do_exit+0x1/0x2\n"
      "[   80.2] ---[ end trace 0000000000000000 ]---\n";
  const auto r = kernel_reports(log);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(report_site(r[0].account),
            "WARNING: at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]");
  EXPECT_EQ(report_site(r[0].account), report_site(r[1].account));
  EXPECT_TRUE(at_exit(r[0].account));
  EXPECT_FALSE(at_exit(r[1].account));
  EXPECT_EQ(report_site(""), "");
  EXPECT_FALSE(at_exit("do_exit+0x1/0x2"));  // no frame: the headline itself
}

}  // namespace
}  // namespace mwc::kernel
