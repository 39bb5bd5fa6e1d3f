#include "cli/record_programs.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

// Returns the path of a new executable script `dir/name`.
std::string script(const fs::path& dir, const std::string& name) {
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << "#!/bin/sh\nexit 0\n";
  fs::permissions(p, fs::perms::owner_all);
  return p.string();
}

class RecordPrograms : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("mwcheck_record_programs_" + std::to_string(getpid()));
  void TearDown() override { fs::remove_all(dir); }
};

TEST_F(RecordPrograms, AProgramIsFoundByPathOrOnPathAndMustBeAnExecutableFile) {
  const std::string a = script(dir / "a", "server");
  EXPECT_EQ(find_program(a, ""), a);
  EXPECT_EQ(find_program("server", "/nonexistent:" + (dir / "a").string()), a);
  EXPECT_EQ(find_program("server", "/nonexistent"), "");
  EXPECT_EQ(find_program((dir / "a").string(), ""), "");  // a folder
  std::ofstream(dir / "a" / "data") << "x";
  EXPECT_EQ(find_program((dir / "a" / "data").string(), ""), "");  // not executable
  EXPECT_EQ(find_program("", "/bin"), "");
}

TEST_F(RecordPrograms, ProgramsAreResolvedOnceAndTwoOfOneNameAreRefused) {
  const std::string a = script(dir / "a", "server"), b = script(dir / "b", "server"),
                    c = script(dir / "a", "client");
  auto r = resolve_programs({a, "client", a}, (dir / "a").string());
  ASSERT_TRUE(std::holds_alternative<std::vector<std::string>>(r));
  EXPECT_EQ(std::get<0>(r), (std::vector<std::string>{a, c}));
  // One file by two paths is one program.
  fs::create_directories(dir / "d");
  fs::create_symlink(dir / "a", dir / "d" / "a");
  r = resolve_programs({a, (dir / "d" / "a" / "server").string()}, "");
  ASSERT_TRUE(std::holds_alternative<std::vector<std::string>>(r));
  EXPECT_EQ(std::get<0>(r), std::vector<std::string>{a});
  r = resolve_programs({a, b}, "");
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_NE(std::get<1>(r).find("is already the program"), std::string::npos) << std::get<1>(r);
  r = resolve_programs({"no-such-program-here"}, (dir / "a").string());
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<1>(r), "--program 'no-such-program-here': no such program on PATH");
}

TEST_F(RecordPrograms, TheProgramsFoldersGoFirstOnPath) {
  EXPECT_EQ(path_with({"/a/x", "/b/y", "/a/z"}, "/usr/bin:/bin"), "/a:/b:/usr/bin:/bin");
  EXPECT_EQ(path_with({}, "/usr/bin"), "/usr/bin");
}

TEST_F(RecordPrograms, TheGuestRunsItsOwnShAndBringsInTheRest) {
  const std::string a = script(dir / "a", "server"), other = script(dir / "b", "client");
  const std::set<std::string> busybox = {"sh", "sleep"};
  const std::string path = (dir / "b").string();
  // sh -c with a --program: the guest's sh, the program on its PATH.
  auto g = guest_command({a}, {"sh", "-c", "server & sleep 1; server 127.0.0.1"}, path, busybox);
  ASSERT_TRUE(std::holds_alternative<GuestCommand>(g));
  EXPECT_EQ(std::get<0>(g).programs, std::vector<std::string>{a});
  EXPECT_EQ(std::get<0>(g).command[0], "sh");
  // A --program named by its path runs by its name.
  g = guest_command({a}, {a, "-x"}, path, busybox);
  ASSERT_TRUE(std::holds_alternative<GuestCommand>(g));
  EXPECT_EQ(std::get<0>(g).command, (std::vector<std::string>{"server", "-x"}));
  // A program of this machine the guest lacks goes in (as record did with one program).
  g = guest_command({}, {"client"}, path, busybox);
  ASSERT_TRUE(std::holds_alternative<GuestCommand>(g));
  EXPECT_EQ(std::get<0>(g).programs, std::vector<std::string>{other});
  g = guest_command({}, {other, "1"}, "", busybox);
  ASSERT_TRUE(std::holds_alternative<GuestCommand>(g));
  EXPECT_EQ(std::get<0>(g).command, (std::vector<std::string>{"client", "1"}));
  // Unknown programs, and one name for two programs, are refused.
  g = guest_command({}, {"no-such-program-here"}, path, busybox);
  ASSERT_TRUE(std::holds_alternative<std::string>(g));
  EXPECT_NE(std::get<1>(g).find("no program 'no-such-program-here'"), std::string::npos);
  g = guest_command({}, {(dir / "nothing").string()}, path, busybox);
  ASSERT_TRUE(std::holds_alternative<std::string>(g));
  const std::string same = script(dir / "c", "server");
  g = guest_command({a}, {same}, path, busybox);
  ASSERT_TRUE(std::holds_alternative<std::string>(g));
  EXPECT_NE(std::get<1>(g).find("have one name in the guest"), std::string::npos);
  g = guest_command({}, {}, path, busybox);
  EXPECT_TRUE(std::holds_alternative<std::string>(g));
}

TEST(BusyboxApplets, TheGuestsShellIsAmongThem) {
  if (!std::filesystem::exists("/bin/busybox")) GTEST_SKIP() << "no /bin/busybox";
  EXPECT_TRUE(busybox_applets().contains("sh"));
}

}  // namespace
}  // namespace mwc::cli
