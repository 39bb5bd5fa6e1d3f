#include "adapters/softroce/oops.hpp"

#include <gtest/gtest.h>

#include <string>

namespace mwc::softroce {
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

}  // namespace
}  // namespace mwc::softroce
