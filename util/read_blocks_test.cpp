#include "util/read_blocks.hpp"

#include <sys/stat.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "util/test_files.hpp"

namespace mwc {
namespace {

// Returns the bytes the file takes on disk.
uint64_t on_disk(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

// 8 MiB written, 6 MiB and a bit read: the read blocks leave the disk, the
// size and the unread bytes stay, and the writer appends as before.
TEST(FreeReadBlocks, GivesBackWhatWasReadAndKeepsTheRest) {
  const auto dir = test::scratch("read_blocks");
  const auto p = dir / "console.log";
  constexpr uint64_t kMiB = uint64_t{1} << 20;
  std::string bytes(8 * kMiB, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>('a' + i % 26);
  std::ofstream out(p, std::ios::binary);
  out << bytes << std::flush;
  ASSERT_GE(on_disk(p), 8 * kMiB);
  uint64_t freed = 0;
  if (!free_read_blocks(p, freed, 6 * kMiB + 100)) GTEST_SKIP() << "this file system has no holes";
  EXPECT_EQ(freed, 6 * kMiB);
  EXPECT_LE(on_disk(p), 2 * kMiB + 64 * 1024);
  EXPECT_EQ(std::filesystem::file_size(p), 8 * kMiB);
  out << "more" << std::flush;
  const std::string now = test::slurp(p);
  ASSERT_EQ(now.size(), 8 * kMiB + 4);
  EXPECT_EQ(now.substr(6 * kMiB, 2 * kMiB), bytes.substr(6 * kMiB));
  EXPECT_EQ(now.substr(8 * kMiB), "more");
  EXPECT_EQ(now.substr(0, 16), std::string(16, '\0'));
  // Less than a block more read frees nothing more; a block more does.
  EXPECT_TRUE(free_read_blocks(p, freed, 6 * kMiB + 4095));
  EXPECT_EQ(freed, 6 * kMiB);
  EXPECT_TRUE(free_read_blocks(p, freed, 6 * kMiB + 4096));
  EXPECT_EQ(freed, 6 * kMiB + 4096);
  std::filesystem::remove_all(dir);
}

TEST(FreeReadBlocks, SaysSoWhenTheFileIsGone) {
  uint64_t freed = 0;
  EXPECT_FALSE(free_read_blocks(test::scratch("read_blocks_gone") / "none", freed, 1 << 20));
  EXPECT_EQ(freed, 0u);
}

}  // namespace
}  // namespace mwc
