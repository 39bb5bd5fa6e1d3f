#include "cli/campaign_inputs.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

TEST(CampaignInputs, KindIsWhatTheFileNameSaysWasFound) {
  EXPECT_EQ(input_kind("r03-finding-12-device.observed-bind.ok.mwt"), "device.observed-bind.ok");
  EXPECT_EQ(input_kind("finding-1-device.observed-mr.range.mwt"), "device.observed-mr.range");
  EXPECT_EQ(input_kind("r10-finding-guest-kernel.mwt"), "guest-kernel");
  EXPECT_EQ(input_kind("finding-guest-kernel.mwt"), "guest-kernel");
  EXPECT_EQ(input_kind("040_zero_based.mwt"), "040_zero_based");
}

TEST(CampaignInputs, KernelAccountIsTheHeadingCommentLines) {
  EXPECT_EQ(kernel_account("# the guest kernel died in the last op of this input\n"
                           "# kernel: BUG: kernel NULL pointer dereference, address: 0000000000000138\n"
                           "# kernel: RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]\n"
                           "buf b0 len=4096\n# kernel: not the account\n"),
            "BUG: kernel NULL pointer dereference, address: 0000000000000138\n"
            "RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]\n");
  EXPECT_EQ(kernel_account("buf b0 len=4096\n"), "");
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(CampaignInputs, JudgesTheSmallestFewOfEachKindAndOnePerKernelCrash) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_campaign_inputs";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Five of one kind, sizes 5..1 bytes in name order: the three smallest are r02..r04.
  for (int r = 0; r < 5; ++r)
    write(dir / ("r0" + std::to_string(r) + "-finding-1-device.observed-bind.ok.mwt"), std::string(5 - r, 'x'));
  write(dir / "r00-finding-2-device.observed-mr.range.mwt", "x");
  // Deaths: two in __rxe_put (the smaller is judged), one elsewhere, two
  // silences (the smaller, r04, is judged).
  const std::string put = "# kernel: RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]\n";
  write(dir / "r00-finding-guest-kernel.mwt", put + "buf b0 len=4096\nbuf b1 len=4096\n");
  write(dir / "r01-finding-guest-kernel.mwt", put + "buf b0 len=4096\n");
  write(dir / "r02-finding-guest-kernel.mwt", "# kernel: RIP: 0010:rxe_completer+0x1/0x9 [rdma_rxe]\nbuf b0 len=1\n");
  write(dir / "r03-finding-guest-kernel.mwt", "# the guest kernel died in the last op of this input\nbuf b0 len=1\n");
  write(dir / "r04-finding-guest-kernel.mwt", "buf b0 len=4096\nbuf b1 len=4096\n");
  write(dir / "notes.txt", "not an input");

  const JudgeChoice c = choose_inputs(dir.string(), 3);
  std::vector<std::string> names;
  for (const auto& p : c.paths) names.push_back(fs::path(p).filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "r00-finding-2-device.observed-mr.range.mwt", "r01-finding-guest-kernel.mwt",
                       "r02-finding-1-device.observed-bind.ok.mwt", "r02-finding-guest-kernel.mwt",
                       "r03-finding-1-device.observed-bind.ok.mwt", "r04-finding-1-device.observed-bind.ok.mwt",
                       "r04-finding-guest-kernel.mwt"}));
  EXPECT_EQ(c.kinds, 5u);  // two rule kinds, three kernel signatures
  // The same inputs, the same choice.
  EXPECT_EQ(choose_inputs(dir.string(), 3).paths, c.paths);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mwc::cli
