#include "adapters/kernel/console_keeper.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "adapters/kernel/oops.hpp"

namespace mwc::kernel {
namespace {

// Returns the keeper's account of `lines` and console_account() of their
// text, for comparison.
std::pair<std::string, std::string> both(const std::vector<std::string>& lines) {
  ConsoleKeeper k;
  std::string text;
  for (const std::string& l : lines) k.add(l), text += l + "\n";
  return {k.account(), console_account(text)};
}

TEST(ConsoleKeeper, GivesTheWholeConsolesAccount) {
  // Consoles drawn from a kernel's kinds of lines: boot chatter, a
  // WARNING's dump, an oops, a soft lockup, a panic, blank lines, a mark
  // inside a line (opens nothing), a serial console's \r.
  const std::vector<std::string> pool = {
      "[    1.000000] rdma_rxe: loaded",
      "[    2.5] WARNING: CPU: 1 PID: 103 at drivers/infiniband/sw/rxe/rxe_mw.c:42 rxe_bind_mw+0x1/0x2 [rdma_rxe]",
      "[    2.5] RIP: 0010:rxe_bind_mw+0x1/0x2 [rdma_rxe]\r",
      "[    2.5] Call Trace:",
      "[    2.5]  <TASK>",
      "[    2.5]  rxe_requester+0x705/0xe40 [rdma_rxe]",
      "[    2.5]  ? update_load_avg+0x615/0x780",
      "[    2.5]  </TASK>",
      "[    2.5] ---[ end trace 0000000000000000 ]---",
      "[    3.0] BUG: kernel NULL pointer dereference, address: 0000000000000138",
      "[   30.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [repro:103]",
      "[    4.0] Kernel panic - not syncing: Fatal exception in interrupt",
      "MWCHECK-TRACE 3",
      "echo Oops from a test",
      "",
  };
  std::mt19937 rng(7);  // a fixed seed: the same consoles every run
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::string> lines(rng() % 80);
    for (std::string& l : lines) {
      // Mostly chatter, now and then a fault's line.
      const size_t pick = rng() % 4 ? (rng() % 2 ? 0 : pool.size() - 3 + rng() % 3) : rng() % pool.size();
      l = pool[pick];
    }
    const auto [kept, whole] = both(lines);
    ASSERT_EQ(kept, whole) << "round " << round;
  }
  EXPECT_EQ(both({}).first, "");
  EXPECT_EQ(both({""}).first, "\n");
}

TEST(ConsoleKeeper, HoldsBoundedBytesHoweverLongTheGuestPrints) {
  // 64 MiB of lines without a fault: the last thirty are held.
  const std::string chatter(1000, 'x');
  ConsoleKeeper quiet;
  for (int i = 0; i < 64 * 1024; ++i) quiet.add(chatter + std::to_string(i));
  EXPECT_LE(quiet.held(), ConsoleKeeper::kTail * ConsoleKeeper::kLineCap);
  EXPECT_EQ(quiet.account().substr(quiet.account().size() - 7), "x65535\n");

  // A warning storm: the first warning's account, and memory capped.
  ConsoleKeeper storm;
  storm.add("[    1.0] booted");
  for (int i = 0; i < 64 * 1024; ++i) {
    storm.add("[    2.0] WARNING: CPU: 0 PID: 7 at drivers/infiniband/sw/rxe/rxe_comp.c:" + std::to_string(i) +
              " rxe_completer+0x1/0x2 [rdma_rxe]");
    storm.add(chatter);
  }
  EXPECT_LE(storm.held(), ConsoleKeeper::kFaultCap + ConsoleKeeper::kTail * ConsoleKeeper::kLineCap);
  EXPECT_EQ(report_site(storm.account()),
            "WARNING: at drivers/infiniband/sw/rxe/rxe_comp.c:0 rxe_completer+0x1/0x2 [rdma_rxe]");

  // One line of 16 MiB (no newline in sight): its first kLineCap bytes.
  ConsoleKeeper wide;
  wide.add(std::string(16u << 20, 'y'));
  EXPECT_EQ(wide.account(), std::string(ConsoleKeeper::kLineCap, 'y') + "\n");
}

}  // namespace
}  // namespace mwc::kernel
