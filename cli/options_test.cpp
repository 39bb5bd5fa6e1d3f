// Every option is validated or does what it says: numbers out of range,
// options that need another, and --inject, each exit 2 with a message that
// names what is wrong, before anything runs.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "adapters/faults.hpp"
#include "cli/test_app.hpp"
#include "refmodel/profile.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

std::string trace_file() {
  const fs::path p = fs::temp_directory_path() / "mwcheck_options_t.mwt";
  std::ofstream(p) << "alloc_pd p0 => OK\n";
  return p.string();
}

void expect_refused(const std::vector<std::string>& args, const std::string& says) {
  std::string all;
  for (const auto& a : args) all += a + " ";
  const Ran r = mwcheck(args);
  EXPECT_EQ(r.status, kExitBadInput) << all << "\n" << r.out << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << all << "\n" << r.err;
}

TEST(Options, NumbersOutOfRangeExitTwo) {
  const std::string out = (fs::temp_directory_path() / "mwcheck_options_gen.mwt").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"fuzz", "-a", "verbs", "-a", "rxe", "--corpus", "none", "--time", "-1"}, "--time"},
      {{"fuzz", "-a", "verbs", "-a", "rxe", "--corpus", "none", "--time", "nan"}, "--time"},
      {{"fuzz", "-a", "verbs", "-a", "rxe", "--corpus", "none", "--time", "inf"}, "--time"},
      {{"fuzz", "-a", "verbs", "-a", "rxe", "--corpus", "none", "--runs", "-1"}, "--runs"},
      {{"fuzz", "-a", "verbs", "-a", "rxe", "--corpus", "none", "--seed", "-1"}, "--seed"},
      {{"power", "--budget", "0"}, "--budget"},
      {{"power", "--budget", "-1"}, "--budget"},
      {{"gen", "--seed", "-1", "-o", out}, "--seed"},
      {{"gen", "--errors", "5000", "-o", out}, "--errors"},
      {{"gen", "--ops", "-1", "-o", out}, "--ops"},
      {{"gen", "--ops", "99999999999999999999", "-o", out}, "--ops"},
      {{"gen", "--pds", "0", "-o", out}, "--pds"},
      {{"conform", "--device", "rxe0", "--shrink-seconds", "nan"}, "--shrink-seconds"},
      {{"export", trace_file(), "--op", "0", "-o", out}, "--op"},
      {{"record", "--timeout", "0", "-o", out, "--", "true"}, "--timeout"},
  };
  for (const auto& [args, option] : cases) expect_refused(args, option + ": ");
  EXPECT_FALSE(fs::exists(out));
}

// Every numeric option shows its range in --help ("INT:[10 - 600000]", or
// CLI11's own "INT:INT in [1 - 64]").
TEST(Options, EveryNumberShowsItsRangeInHelp) {
  const std::regex number(R"((INT|UINT|FLOAT)\b)"), ranged(R"((INT|UINT|FLOAT):(\w+ in )?\[)");
  for (const char* verb : {"run", "diff", "conform", "replay", "gen", "record", "fuzz", "power", "export"}) {
    const Ran r = mwcheck({verb, "--help"});
    ASSERT_EQ(r.status, 0) << verb;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, number)) continue;
      EXPECT_TRUE(std::regex_search(line, ranged)) << verb << ": " << line;
    }
  }
}

TEST(Options, AProfileWithNothingAfterPlusExitsTwo) {
  expect_refused({"run", "--profile", "rxe+", trace_file()}, "expected knob=alternative after '+' in 'rxe+'");
  expect_refused({"run", "--profile", "nosuch", trace_file()}, "(profiles: " + profile_names() + ")");
}

TEST(Options, DeviceOnlyOptionsWithoutADeviceExitTwo) {
  expect_refused({"conform", "--against", "nosuch"}, "--against requires --device");
  expect_refused({"conform", "--baseline", "old.json"}, "--baseline requires --device");
  expect_refused({"conform", "--export", "out"}, "--export requires --device");
  expect_refused({"run", "--inject", "bogus:x", trace_file()}, "--inject is for a device");
  expect_refused({"run", "--op-timeout", "100", trace_file()}, "--op-timeout is for a device");
  expect_refused({"diff", "-a", "verbs", "-a", "rxe", "--kvm", trace_file()}, "--kvm is for a device");
  expect_refused({"export", trace_file(), "-o", "out", "--no-python"}, "--no-python requires --device");
}

TEST(Options, InjectNamesAFaultOfTheTableAndATraceThatRuns) {
  const std::string t = trace_file();
  const Ran bad = mwcheck({"run", "--device", "rxe0", "--inject", "bogus:x", t});
  EXPECT_EQ(bad.status, kExitBadInput);
  EXPECT_NE(bad.err.find("no such fault"), std::string::npos) << bad.err;
  for (const auto& f : fault_descs()) EXPECT_NE(bad.err.find(std::string(f.name) + ":TRACE"), std::string::npos);
  expect_refused({"run", "--device", "rxe0", "--inject", "provider-crash:nosuch", t},
                 "the fault never fires: no trace 'nosuch' runs here (traces: mwcheck_options_t)");
  expect_refused({"conform", "--device", "rxe0", "--inject", "no-completion:nosuch"}, "the fault never fires");
  expect_refused({"run", "--device", "rxe0", "--inject", "guest-panic:mwcheck_options_t", t},
                 "guest-panic fires only inside the Soft-RoCE VM");
  expect_refused({"fuzz", "-a", "device:rxe0", "-a", "rxe", "--corpus", "none", "--inject", "provider-crash:x"},
                 "the fault never fires");
}

TEST(Options, RecordOnAnUnknownDeviceExitsTwoWithoutBooting) {
  expect_refused({"record", "--device", "nosuch", "-o", "x.mwt", "--", "true"},
                 "--device 'nosuch': record runs a program in the Soft-RoCE VM");
}

}  // namespace
}  // namespace mwc::cli
