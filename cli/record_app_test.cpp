// mwcheck record, driven as the program is, on this host (the recording of
// a real program on Soft-RoCE is adapters/softroce/softroce_test.cpp's).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("mwcheck_record_app_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(Record, AProgramThatCallsNoVerbGivesNoTrace) {
  const auto r = mwcheck({"record", "-o", temp("none.mwt"), "--", "/bin/true"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("/bin/true exited with status 0, and called no verb the recorder saw"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(temp("none.mwt")));
}

TEST(Record, AProgramThatHangsIsKilledAtTheTimeLimit) {
  const auto r = mwcheck({"record", "--timeout", "1", "-o", temp("hang.mwt"), "--", "/bin/sleep", "60"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("was killed after the time limit (TIMEOUT)"), std::string::npos) << r.err;
}

TEST(Record, AProgramThatCannotStartIsBadInput) {
  const auto r = mwcheck({"record", "-o", temp("x.mwt"), "--", "/nonexistent/program"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("cannot run /nonexistent/program"), std::string::npos) << r.err;
  EXPECT_EQ(mwcheck({"record", "-o", temp("x.mwt")}).status, 2);  // no program
}

TEST(Record, AKeptLogConvertsAndABadOneIsNamedByLineAndColumn) {
  const std::string log = temp("good.log"), bad = temp("bad.log"), out = temp("good.mwb");
  std::ofstream(log) << "mwcheck-record 1\n"
                        "pd pid=1 pd=2000 rc=0\n"
                        "mr pid=1 pd=2000 addr=10000 len=1000 iova=10000 access=17 mr=3000 rkey=105 rc=0\n"
                        "mw pid=1 pd=2000 type=1 mw=5000 rkey=307 rc=0\n"
                        "mr_free pid=1 mr=3000 rc=0\n"
                        "mw_free pid=1 mw=5000 rc=0\n"
                        "pd_free pid=1 pd=2000 rc=0\n";
  auto r = mwcheck({"record", "--from-log", log, "-o", out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("recorded 7 ops (7 with the outcome the program saw)"), std::string::npos) << r.out;
  r = mwcheck({"replay", "--profile", "rxe", out});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("7 ops, 7 checked, 0 mismatches"), std::string::npos) << r.out;

  std::ofstream(bad) << "mwcheck-record 1\npd pid=1 pd=2000 rc=0\nmw pid=1 pd=2000 type=1 mw=5000 rkey=3g7 rc=0\n";
  r = mwcheck({"record", "--from-log", bad, "-o", temp("bad.mwt")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad + ":3:38: error: '3g7' is not a 64-bit hexadecimal number"), std::string::npos)
      << r.err;
  for (const auto& f : {log, bad, out}) fs::remove(f);
}

}  // namespace
}  // namespace mwc::cli
