#include "util/line_chunks.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "util/test_files.hpp"

namespace mwc {
namespace {

TEST(LineChunks, ChunksAreWholeLinesThatMakeTheFile) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "line " + std::to_string(i) + "\n";
  text += "last line without newline";
  const std::string p = test::write_temp("line_chunks.txt", text);
  LineChunks c;
  InputError e;
  ASSERT_TRUE(c.open(p, 100, e)) << e.message;
  std::string chunk, all;
  size_t first = 0, line = 1, pieces = 0;
  while (c.next(chunk, first, e, 1000)) {
    EXPECT_EQ(first, line);
    EXPECT_TRUE(chunk.back() == '\n' || all.size() + chunk.size() == text.size());
    line += static_cast<size_t>(std::count(chunk.begin(), chunk.end(), '\n'));
    all += chunk;
    ++pieces;
  }
  EXPECT_TRUE(e.message.empty()) << e.message;
  EXPECT_EQ(all, text);
  EXPECT_GT(pieces, 5u);  // a chunk is at least one read (64 KiB)
}

TEST(LineChunks, ALongLineAndAFolderArePlaced) {
  const std::string p = test::write_temp("line_chunks_long.txt", "a\nb\n" + std::string(3000, 'x') + "\nc\n");
  LineChunks c;
  InputError e;
  ASSERT_TRUE(c.open(p, 1024, e));
  std::string chunk;
  size_t first = 0;
  while (c.next(chunk, first, e, 512)) {
  }
  EXPECT_EQ(e.line, 3u);
  EXPECT_EQ(e.col, 1025u);
  EXPECT_EQ(e.message, "line longer than the limit of 1 KiB");
  LineChunks d;
  EXPECT_FALSE(d.open(test::scratch("line_chunks_dir").string(), 1024, e));
  EXPECT_EQ(e.message, "is a folder, not a file");
  LineChunks z;  // a device without newlines ends at the line limit
  ASSERT_TRUE(z.open("/dev/zero", 1024, e));
  EXPECT_FALSE(z.next(chunk, first, e));
  EXPECT_EQ(e.line, 1u);
}

}  // namespace
}  // namespace mwc
