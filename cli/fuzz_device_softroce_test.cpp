// A fuzzing campaign against the Soft-RoCE VM, as a user runs one: it
// ends in findings judged by the specification, one per root cause, each
// with a reproducer shrunk on the device, in report.json; the rounds and
// the guest deaths they survived are said. (Label softroce: minutes.)
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/softroce/test_command.hpp"

namespace {
namespace fs = std::filesystem;
using mwc::softroce::testing::mwcheck;

TEST(FuzzSoftRoce, ACampaignOnTheDeviceEndsInJudgedFindings) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_fuzz_device";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string out;
  const int rc = mwcheck("fuzz -a device:softroce -a profile:verbs --seed 1 --time 60 --shrink-seconds 60 --out " +
                             (dir / "inputs").string() + " --report " + (dir / "report").string(),
                         out);
  ASSERT_EQ(rc, 1) << out;  // rxe 6.1 has findings
  EXPECT_NE(out.find("fuzz: round 1 (seed 1)"), std::string::npos) << out;
  // The campaign says what it ran, and how often the guest died under it.
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(fuzz: \d+ rounds?, \d+ guest deaths?, [1-9]\d* inputs? kept\n)"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex(R"(fuzz: judging [1-9]\d* inputs? \([1-9]\d* kinds?, at most 3 each; one per kernel crash\))")))
      << out;
  std::ifstream in(dir / "report" / "report.json");
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("findings"));
  std::set<std::string> ids;
  size_t real = 0;
  for (const auto& f : j["findings"]) {
    EXPECT_TRUE(ids.insert(f["id"].get<std::string>()).second) << "one finding per root cause: " << f["id"];
    if (f["severity"] == "unsupported") continue;
    ++real;
    EXPECT_FALSE(f["reproducer"].get<std::string>().empty()) << f["id"];
    // Every reproducer was shrunk on the device (from the input that showed it).
    EXPECT_LE(f["ops"].get<size_t>(), f["shrunk_from"].get<size_t>()) << f["id"];
  }
  EXPECT_GE(real, 1u) << out;
}

}  // namespace
