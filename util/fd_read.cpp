#include "util/fd_read.hpp"

#include <unistd.h>

#include <cerrno>

namespace mwc {

ssize_t read_full(int fd, void* p, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = read_some(fd, static_cast<char*>(p) + got, n - got);
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

ssize_t read_some(int fd, void* p, size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd, p, n);
    if (r >= 0 || errno != EINTR) return r;
  }
}

}  // namespace mwc
