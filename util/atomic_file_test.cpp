#include "util/atomic_file.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "util/test_files.hpp"

namespace mwc {
namespace {
namespace fs = std::filesystem;
using test::names;
using test::scratch;
using test::slurp;

TEST(AtomicFile, WritesAndReplaces) {
  const fs::path d = scratch("atomic_replace");
  std::string why;
  ASSERT_TRUE(write_file((d / "a").string(), "first", why)) << why;
  ASSERT_TRUE(write_file((d / "a").string(), "second", why)) << why;
  EXPECT_EQ(slurp(d / "a"), "second");
  EXPECT_EQ(names(d), std::vector<std::string>{"a"});
  // A new file gets the mode open() would give it, not mkstemp's 0600.
  const mode_t m = umask(022);
  ASSERT_TRUE(write_file((d / "b").string(), "", why)) << why;
  umask(m);
  EXPECT_EQ(fs::status(d / "b").permissions(), fs::perms(0644));
}

TEST(AtomicFile, ASetThatFailsLeavesTheOldSet) {
  const fs::path d = scratch("atomic_set");
  std::ofstream(d / "report.json") << "old json";
  std::string why;
  // The second file cannot be written: the first must not be replaced.
  EXPECT_FALSE(write_files({{(d / "report.json").string(), "new json"},
                            {(d / "missing" / "junit.xml").string(), "new junit"}},
                           why));
  EXPECT_NE(why.find("junit.xml"), std::string::npos) << why;
  EXPECT_EQ(slurp(d / "report.json"), "old json");
  EXPECT_EQ(names(d), std::vector<std::string>{"report.json"});
}

// A file size limit (as a full disk would) fails the write in a child:
// the old file stays whole and no temporary file is left.
TEST(AtomicFile, AWriteFailureLeavesTheOldFile) {
  const fs::path d = scratch("atomic_limit");
  std::ofstream(d / "out") << "old";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit lim{1000, 1000};
    setrlimit(RLIMIT_FSIZE, &lim);
    std::string why;
    const bool ok = write_file((d / "out").string(), std::string(5000, 'x'), why);
    _exit(!ok && why.find("File too large") != std::string::npos ? 0 : 1);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_EQ(slurp(d / "out"), "old");
  EXPECT_EQ(names(d), std::vector<std::string>{"out"});
}

}  // namespace
}  // namespace mwc
