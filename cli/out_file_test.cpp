#include "cli/out_file.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include <gtest/gtest.h>

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(OutFile, TheTargetChangesOnlyOnCommit) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_out_file_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "t.mwb";
  std::ofstream(target) << "old";
  {
    OutFile f(target.string());
    ASSERT_TRUE(f.ok()) << f.error();
    std::fputs("half", f.file());
    std::fflush(f.file());
    EXPECT_EQ(slurp(target), "old");
    EXPECT_EQ(entries(dir), 2u);  // the target and the new file beside it
  }  // never committed: the new file goes
  EXPECT_EQ(slurp(target), "old");
  EXPECT_EQ(entries(dir), 1u);
  {
    OutFile f(target.string());
    std::fputs("new", f.file());
    EXPECT_TRUE(f.commit()) << f.error();
  }
  EXPECT_EQ(slurp(target), "new");
  EXPECT_EQ(entries(dir), 1u);
  const OutFile nowhere((dir / "no" / "such.mwb").string());
  EXPECT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.error().find("no/such.mwb:1:1: error: cannot write: "), std::string::npos);
}

// A link is followed (the file it names is replaced on commit, the link
// stays); a pipe's descriptor (as /dev/stdout) is written in place.
TEST(OutFile, ALinkStaysAndAPipeIsWrittenInPlace) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_out_file_link";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "real.mwb") << "old";
  fs::create_symlink("real.mwb", dir / "link.mwb");
  {
    OutFile f((dir / "link.mwb").string());
    ASSERT_TRUE(f.ok()) << f.error();
    std::fputs("new", f.file());
    EXPECT_TRUE(f.commit()) << f.error();
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link.mwb"));
  EXPECT_EQ(slurp(dir / "real.mwb"), "new");
  EXPECT_EQ(entries(dir), 2u);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    OutFile f("/proc/self/fd/" + std::to_string(fds[1]));
    ASSERT_TRUE(f.ok()) << f.error();
    std::fputs("piped", f.file());
    EXPECT_TRUE(f.commit()) << f.error();
  }
  char buf[16] = {};
  EXPECT_EQ(::read(fds[0], buf, sizeof buf), 5);
  EXPECT_STREQ(buf, "piped");
  ::close(fds[0]), ::close(fds[1]);
}

}  // namespace
}  // namespace mwc::cli
