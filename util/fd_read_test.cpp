#include "util/fd_read.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <thread>

#include <gtest/gtest.h>

namespace mwc {
namespace {

using namespace std::chrono_literals;

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fd), 0); }
  ~Pipe() {
    for (const int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_writer() { ::close(fd[1]), fd[1] = -1; }
};

// A pipe's writer writes in pieces: read_full gathers them into one block,
// read_some returns each as it comes, and both say where the end is.
TEST(FdRead, FullBlocksGatherPiecesAndSomeTakesWhatCame) {
  Pipe p;
  std::thread writer([&] {
    for (const char* piece : {"abc", "defg", "hi"}) {
      EXPECT_GT(::write(p.fd[1], piece, std::char_traits<char>::length(piece)), 0);
      std::this_thread::sleep_for(20ms);
    }
    p.close_writer();
  });
  uint8_t buf[16] = {};
  EXPECT_EQ(read_some(p.fd[0], buf, sizeof buf), 3);  // the first piece alone
  EXPECT_EQ(read_full(p.fd[0], buf, 5), 5);          // "defg" and "h"
  EXPECT_EQ(std::string(reinterpret_cast<char*>(buf), 5), "defgh");
  writer.join();
  EXPECT_EQ(read_full(p.fd[0], buf, sizeof buf), 1);  // fewer at the end
  EXPECT_EQ(read_some(p.fd[0], buf, sizeof buf), 0);
}

// A signal whose handler does not restart calls interrupts a read that
// waits: the read is taken up again, and gets the bytes written after.
TEST(FdRead, AnInterruptedReadIsTakenUpAgain) {
  struct sigaction sa {}, old{};
  sa.sa_handler = [](int) {};
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: read() returns EINTR
  ASSERT_EQ(::sigaction(SIGUSR1, &sa, &old), 0);
  Pipe p;
  const pthread_t reader = ::pthread_self();
  std::thread writer([&] {
    std::this_thread::sleep_for(50ms);
    ::pthread_kill(reader, SIGUSR1);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(::write(p.fd[1], "xy", 2), 2);
    ::pthread_kill(reader, SIGUSR1);
    std::this_thread::sleep_for(20ms);
    p.close_writer();
  });
  uint8_t buf[8] = {};
  EXPECT_EQ(read_some(p.fd[0], buf, sizeof buf), 2);
  EXPECT_EQ(read_full(p.fd[0], buf, sizeof buf), 0);
  writer.join();
  ::sigaction(SIGUSR1, &old, nullptr);
}

TEST(FdRead, ErrorsSayWhy) {
  uint8_t b = 0;
  errno = 0;
  EXPECT_EQ(read_full(-1, &b, 1), -1);
  EXPECT_EQ(errno, EBADF);
  errno = 0;
  EXPECT_EQ(read_some(-1, &b, 1), -1);
  EXPECT_EQ(errno, EBADF);
}

}  // namespace
}  // namespace mwc
