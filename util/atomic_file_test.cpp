#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
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

// A link is followed: the file it names is replaced, the link stays (a
// rename onto the link itself would turn it into a file).
TEST(AtomicFile, ALinkIsFollowedAndStays) {
  const fs::path d = scratch("atomic_link");
  std::ofstream(d / "real") << "old";
  fs::create_symlink("real", d / "link");
  fs::create_symlink("made", d / "dangling");
  std::string why;
  ASSERT_TRUE(write_file((d / "link").string(), "new", why)) << why;
  ASSERT_TRUE(write_file((d / "dangling").string(), "made new", why)) << why;
  EXPECT_TRUE(fs::is_symlink(d / "link"));
  EXPECT_TRUE(fs::is_symlink(d / "dangling"));
  EXPECT_EQ(slurp(d / "real"), "new");
  EXPECT_EQ(slurp(d / "made"), "made new");
  EXPECT_EQ(names(d), (std::vector<std::string>{"dangling", "link", "made", "real"}));
  EXPECT_EQ(output_target((d / "link").string()).path, (d / "real").string());
  EXPECT_FALSE(output_target((d / "link").string()).in_place);
}

// A pipe, and a descriptor's link in /proc (as /dev/stdout is), are
// written in place: the bytes reach the reader, the names stay what they were.
TEST(AtomicFile, APipeAndADescriptorAreWrittenInPlace) {
  const fs::path d = scratch("atomic_pipe");
  ASSERT_EQ(mkfifo((d / "fifo").c_str(), 0600), 0);
  const int reader = ::open((d / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  std::string why;
  ASSERT_TRUE(write_file((d / "fifo").string(), "through the fifo", why)) << why;
  char buf[64] = {};
  EXPECT_EQ(::read(reader, buf, sizeof buf), 16);
  EXPECT_STREQ(buf, "through the fifo");
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(d / "fifo"));

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string fd_link = "/proc/self/fd/" + std::to_string(fds[1]);
  fs::create_symlink(fd_link, d / "stdout");  // as /dev/stdout names /proc/self/fd/1
  EXPECT_TRUE(output_target((d / "stdout").string()).in_place);
  EXPECT_TRUE(output_target(fd_link).in_place);
  ASSERT_TRUE(write_file((d / "stdout").string(), "via the link", why)) << why;
  ASSERT_TRUE(write_file(fd_link, "+direct", why)) << why;
  std::memset(buf, 0, sizeof buf);
  EXPECT_EQ(::read(fds[0], buf, sizeof buf), 19);
  EXPECT_STREQ(buf, "via the link+direct");
  ::close(fds[0]), ::close(fds[1]);
  EXPECT_TRUE(fs::is_symlink(d / "stdout"));
  EXPECT_EQ(names(d), (std::vector<std::string>{"fifo", "stdout"}));
}

// A device is written in place, never replaced by a file: a null device
// takes the bytes, a full one fails the write and the set with ENOSPC,
// leaving the set's other files as they were. (Device nodes need root; the
// nodes are this folder's own, never /dev's.)
TEST(AtomicFile, ADeviceIsWrittenInPlaceAndItsFailureFailsTheSet) {
  const fs::path d = scratch("atomic_device");
  if (mknod((d / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      mknod((d / "full").c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    GTEST_SKIP() << "cannot make device nodes here: " << std::strerror(errno);
  std::ofstream(d / "report.json") << "old json";
  std::string why;
  EXPECT_TRUE(write_file((d / "null").string(), "gone", why)) << why;
  EXPECT_FALSE(write_files({{(d / "report.json").string(), "new json"}, {(d / "full").string(), "no room"}}, why));
  EXPECT_EQ(why, (d / "full").string() + ": No space left on device");
  EXPECT_EQ(slurp(d / "report.json"), "old json");
  EXPECT_TRUE(fs::is_character_file(d / "null"));
  EXPECT_TRUE(fs::is_character_file(d / "full"));
  EXPECT_EQ(names(d), (std::vector<std::string>{"full", "null", "report.json"}));
}

}  // namespace
}  // namespace mwc
