#include "util/read_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "util/test_files.hpp"

namespace mwc {
namespace {

TEST(ReadInput, AFileIsReadWhole) {
  const std::string p = test::write_temp("read_input.txt", "a\nbc\n");
  std::string bytes;
  InputError e;
  ASSERT_TRUE(read_input(p, {100, 10}, bytes, e)) << e.message;
  EXPECT_EQ(bytes, "a\nbc\n");
}

TEST(ReadInput, AFolderAMissingFileAndAnEndlessDeviceAreRefused) {
  std::string bytes;
  InputError e;
  EXPECT_FALSE(read_input(test::scratch("read_input_dir").string(), {100}, bytes, e));
  EXPECT_EQ(e.message, "is a folder, not a file");
  EXPECT_FALSE(read_input("/nonexistent/x", {100}, bytes, e));
  EXPECT_EQ(e.message, "cannot open: No such file or directory");
  EXPECT_FALSE(read_input("/dev/zero", {1u << 20}, bytes, e));
  EXPECT_EQ(e.message, "larger than the limit of 1 MiB (an input without end?)");
  EXPECT_TRUE(bytes.empty());
}

TEST(ReadInput, ALongLineIsPlaced) {
  const std::string p = test::write_temp("read_input_long.txt", "ok\nok\n" + std::string(300, 'x') + "\n");
  std::string bytes;
  InputError e;
  EXPECT_FALSE(read_input(p, {1u << 20, 256}, bytes, e));
  EXPECT_EQ(e.line, 3u);
  EXPECT_EQ(e.col, 257u);
  EXPECT_EQ(e.message, "line longer than the limit of 256 bytes");
  // /dev/zero has no newline: its first line is too long long before the size limit.
  EXPECT_FALSE(read_input("/dev/zero", {1u << 30, 1u << 16}, bytes, e));
  EXPECT_EQ(e.line, 1u);
}

TEST(ReadInput, AFifoWithoutWriterIsAnEmptyInputNotAHang) {
  const std::string p = (test::scratch("read_input_fifo") / "fifo").string();
  ASSERT_EQ(mkfifo(p.c_str(), 0600), 0);
  std::string bytes = "x";
  InputError e;
  EXPECT_TRUE(read_input(p, {100}, bytes, e)) << e.message;
  EXPECT_TRUE(bytes.empty());
}

TEST(ReadInput, DashIsStandardInputReadThroughADescriptorOfItsOwn) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_EQ(write(p[1], "a\nb\n", 4), 4);
  close(p[1]);
  const int saved = dup(0);
  dup2(p[0], 0);
  close(p[0]);
  std::string bytes;
  InputError e;
  const bool read = read_input("-", {100, 10}, bytes, e);
  // Standard input stays open: the copy was closed.
  const bool open = fcntl(0, F_GETFD) != -1;
  dup2(saved, 0);
  close(saved);
  EXPECT_TRUE(read) << e.message;
  EXPECT_EQ(bytes, "a\nb\n");
  EXPECT_TRUE(open);
}

}  // namespace
}  // namespace mwc
