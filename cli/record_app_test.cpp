// mwcheck record, driven as the program is, on this host (the recording of
// a real program on Soft-RoCE is adapters/softroce/softroce_test.cpp's).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
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

TEST(Record, WhatTheCommandLeavesRunningIsWaitedForAndKilledAtTheTimeLimit) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = mwcheck({"record", "--timeout", "2", "-o", temp("bg.mwt"), "--", "sh", "-c", "sleep 60 & exit 0"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("exited with status 0, and what it started was killed after the time limit (TIMEOUT)"),
            std::string::npos)
      << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  // Ended in time, a background program is waited for: its work is part of the recording.
  const std::string mark = temp("bg.done");
  const auto ok = mwcheck({"record", "--timeout", "20", "-o", temp("bg.mwt"), "--", "sh", "-c",
                           "(sleep 1; touch " + mark + ") & exit 0"});
  EXPECT_EQ(ok.status, 1) << ok.err;  // no verb called
  EXPECT_NE(ok.err.find("exited with status 0, and called no verb"), std::string::npos) << ok.err;
  EXPECT_TRUE(fs::exists(mark));
  fs::remove(mark);
}

// Returns whether a process whose command line is `cmdline` (its words
// joined by spaces) runs on this machine.
bool running(const std::string& cmdline) {
  for (const auto& d : fs::directory_iterator("/proc")) {
    std::ifstream f(d.path() / "cmdline");
    std::string s;
    if (!std::getline(f, s)) continue;
    std::replace(s.begin(), s.end(), '\0', ' ');
    if (s == cmdline + " ") return true;
  }
  return false;
}

TEST(Record, WhatLeavesTheCommandsSessionIsKilledAtTheTimeLimitToo) {
  // A daemon leaves the process group (setsid, a double fork); it is still
  // below the keeper, and dies with the rest.
  const std::string sleeper = "sleep 3000." + std::to_string(getpid() % 1000);
  ASSERT_FALSE(running(sleeper));
  const auto r = mwcheck({"record", "--timeout", "2", "-o", temp("daemon.mwt"), "--", "sh", "-c",
                          "setsid sh -c '" + sleeper + " & exit 0' & exit 0"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("what it started was killed after the time limit (TIMEOUT)"), std::string::npos) << r.err;
  const bool left = running(sleeper);
  if (left) std::system(("pkill -KILL -f '^" + sleeper + "$'").c_str());
  EXPECT_FALSE(left) << sleeper << " outlived the recording";
}

TEST(Record, ProgramsAreRunByNameAndAnUnknownOneIsBadInput) {
  const fs::path dir = temp("bin");
  fs::create_directories(dir);
  const std::string mark = temp("ran");
  std::ofstream(dir / "my_server") << "#!/bin/sh\ntouch " << mark << "\n";
  fs::permissions(dir / "my_server", fs::perms::owner_all);
  auto r = mwcheck({"record", "--program", (dir / "my_server").string(), "-o", temp("p.mwt"), "--", "sh", "-c",
                    "my_server"});
  EXPECT_EQ(r.status, 1) << r.err;  // it ran, and called no verb
  EXPECT_NE(r.err.find("sh -c my_server exited with status 0"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(mark));
  r = mwcheck({"record", "--program", "/nonexistent/server", "-o", temp("p.mwt"), "--", "server"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("--program '/nonexistent/server': no such program"), std::string::npos) << r.err;
  r = mwcheck({"record", "--device", "softroce", "-o", temp("p.mwt"), "--", "no-such-program-here"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("no program 'no-such-program-here'"), std::string::npos) << r.err;
  fs::remove_all(dir);
  fs::remove(mark);
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
