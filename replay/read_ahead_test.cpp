#include "replay/read_ahead.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace mwc::replay {
namespace {
namespace fs = std::filesystem;

// A file of n bytes, byte i being i * 7 mod 251; each test names its own
// (ctest runs tests side by side).
std::string file_of(const std::string& name, size_t n, std::vector<uint8_t>& bytes) {
  bytes.resize(n);
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(i * 7 % 251);
  const std::string path = (fs::temp_directory_path() / ("mwcheck_read_ahead_test_" + name)).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(n));
  return path;
}

// Reads `total` bytes from `skip` on through a ReadAhead; returns them and
// the chunks' sizes, checking that each chunk's headroom is there to write.
struct Got {
  std::vector<uint8_t> bytes;
  std::vector<size_t> sizes;
  uint64_t sum = 0;
};
Got read_through(const std::string& path, size_t skip, uint64_t total, size_t chunk,
                 size_t unsummed = 0) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::lseek(fd, static_cast<off_t>(skip), SEEK_SET), static_cast<off_t>(skip));
  Got got;
  Checksum sum(Hash::xxh3);
  {
    ReadAhead ahead(fd, total, chunk, 5, &sum, unsummed);
    bool holds = false;
    for (bool last = false; !last;) {
      const ReadAhead::Chunk c = ahead.next();
      EXPECT_EQ(c.error, 0);
      std::memset(c.data - 5, 0xab, 5);  // the headroom is the caller's
      got.bytes.insert(got.bytes.end(), c.data, c.data + c.size);
      got.sizes.push_back(c.size);
      if (holds) ahead.done();
      holds = true;
      last = c.last;
    }
  }
  ::close(fd);
  got.sum = sum.digest();
  return got;
}

TEST(ReadAhead, GivesTheBytesInOrderInChunksAndSumsThem) {
  std::vector<uint8_t> bytes;
  const std::string path = file_of("order", 10000, bytes);
  for (const size_t chunk : {size_t{1}, size_t{999}, size_t{4096}, size_t{1} << 20}) {
    const Got g = read_through(path, 100, 9000, chunk);
    const std::vector<uint8_t> want(bytes.begin() + 100, bytes.begin() + 9100);
    EXPECT_EQ(g.bytes, want) << chunk;
    EXPECT_EQ(g.sum, checksum(want, Hash::xxh3)) << chunk;
    for (size_t i = 0; i + 1 < g.sizes.size(); ++i) EXPECT_EQ(g.sizes[i], chunk);
  }
}

// A pipe's trailer sums the bytes before it: the last bytes are left out,
// however the chunks cut them.
TEST(ReadAhead, LeavesTheLastBytesOutOfTheSum) {
  std::vector<uint8_t> bytes;
  const std::string path = file_of("unsummed", 1000, bytes);
  for (const size_t chunk : {size_t{1}, size_t{5}, size_t{24}, size_t{25}, size_t{333}, size_t{4096}})
    for (const size_t unsummed : {size_t{1}, size_t{24}, size_t{1000}, size_t{1200}}) {
      const Got g = read_through(path, 0, 1'000'000, chunk, unsummed);
      EXPECT_EQ(g.bytes, bytes);
      const size_t n = bytes.size() - std::min(unsummed, bytes.size());
      EXPECT_EQ(g.sum, checksum({bytes.data(), n}, Hash::xxh3)) << chunk << " " << unsummed;
    }
}

// Asked for more than the file holds: the chunk that meets the end is the
// last; asked for nothing: one empty last chunk.
TEST(ReadAhead, StopsAtTheEndOfTheFile) {
  std::vector<uint8_t> bytes;
  const std::string path = file_of("end", 3000, bytes);
  const Got g = read_through(path, 0, 1'000'000, 1024);
  EXPECT_EQ(g.bytes, bytes);
  EXPECT_EQ(g.sizes, (std::vector<size_t>{1024, 1024, 952}));
  const Got none = read_through(path, 0, 0, 1024);
  EXPECT_EQ(none.sizes, (std::vector<size_t>{0}));
}

// From a pipe: what has come is handed over (the reader need not wait for
// a whole chunk: a trace written as it runs is checked as it comes), and
// the end of the pipe is the last chunk.
TEST(ReadAhead, HandsOverWhatAPipeBrought) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::vector<uint8_t> bytes(5000);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i % 253);
  std::mutex mu;
  std::condition_variable cv;
  size_t taken = 0;     // bytes the reader has had
  bool stalled = false;  // a piece written was not handed over
  std::thread writer([&] {
    for (size_t at = 0; at < bytes.size(); at += 1000) {
      ASSERT_EQ(::write(fds[1], bytes.data() + at, 1000), 1000);
      // The next piece only once this one was handed over (a reader that
      // waited for a whole chunk would wait for ever: a time limit).
      std::unique_lock lock(mu);
      if (!cv.wait_for(lock, std::chrono::seconds(5), [&] { return taken >= at + 1000; })) stalled = true;
    }
    ::close(fds[1]);
  });
  std::vector<uint8_t> got;
  Checksum sum(Hash::xxh3);
  {
    ReadAhead ahead(fds[0], ~uint64_t{0}, 4096, 0, &sum, 10, true);
    bool holds = false;
    for (bool last = false; !last;) {
      const ReadAhead::Chunk c = ahead.next();
      ASSERT_EQ(c.error, 0);
      got.insert(got.end(), c.data, c.data + c.size);
      if (holds) ahead.done();
      holds = true;
      last = c.last;
      {
        std::lock_guard lock(mu);
        taken = got.size();
      }
      cv.notify_all();
    }
  }
  writer.join();
  ::close(fds[0]);
  EXPECT_FALSE(stalled);
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(sum.digest(), checksum({bytes.data(), bytes.size() - 10}, Hash::xxh3));
}

TEST(ReadAhead, AReadThatFailsIsTheLastChunkAndSaysWhy) {
  const int fd = ::open(fs::temp_directory_path().c_str(), O_RDONLY | O_DIRECTORY);  // read(): EISDIR
  ASSERT_GE(fd, 0);
  {
    ReadAhead ahead(fd, 100, 10, 0, nullptr);
    const ReadAhead::Chunk c = ahead.next();
    EXPECT_EQ(c.error, EISDIR);
    EXPECT_EQ(c.size, 0u);
    EXPECT_TRUE(c.last);
  }
  ::close(fd);
}

// Destroyed before every chunk was taken: the thread stops, nothing hangs.
TEST(ReadAhead, StopsWhenDestroyedEarly) {
  std::vector<uint8_t> bytes;
  const std::string path = file_of("early", 100000, bytes);
  const int fd = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  {
    ReadAhead ahead(fd, bytes.size(), 10, 0, nullptr);
    EXPECT_EQ(ahead.next().size, 10u);
  }
  ::close(fd);
}

}  // namespace
}  // namespace mwc::replay
