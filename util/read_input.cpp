#include "util/read_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/fd_read.hpp"

namespace mwc {
namespace {

std::string size_text(size_t n) {
  if (n % (1u << 20) == 0) return std::to_string(n >> 20) + " MiB";
  if (n % (1u << 10) == 0) return std::to_string(n >> 10) + " KiB";
  return std::to_string(n) + " bytes";
}

}  // namespace

int open_input(const std::string& path, struct stat& st, InputError& e) {
  e = {};
  // Standard input as a descriptor of its own, which the caller closes.
  const bool stdin_ = path == kStdioPath;
  // O_NONBLOCK: a FIFO with no writer must not block the open; reads block
  // again afterwards (a FIFO whose writer is gone reads as its end).
  const int fd = stdin_ ? fcntl(0, F_DUPFD_CLOEXEC, 0)
                        : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return e.message = std::string(stdin_ ? "cannot read standard input: " : "cannot open: ") + std::strerror(errno), -1;
  if (!stdin_) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  st = {};
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return e.message = "is a folder, not a file", -1;
  }
  return fd;
}

InputError line_too_long(size_t line, size_t max_line) {
  return {line, max_line + 1, "line longer than the limit of " + size_text(max_line)};
}

bool read_input(const std::string& path, const InputLimits& limits, std::string& bytes, InputError& e) {
  bytes.clear();
  struct stat st {};
  const int fd = open_input(path, st, e);
  if (fd < 0) return false;
  return read_rest(fd, st, limits, bytes, e);
}

bool read_rest(int fd, const struct stat& st, const InputLimits& limits, std::string& bytes, InputError& e) {
  e = {};
  if (S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) <= std::max(limits.max_bytes, limits.binary_max_bytes))
    bytes.reserve(static_cast<size_t>(st.st_size));
  // Where the current line started, and its number, for the line limit
  // (the bytes held already are checked with the first read's).
  size_t line_start = 0, line = 1;
  bool first = true;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = read_some(fd, buf, sizeof buf);
    if (n < 0) {
      const int why = errno;
      ::close(fd);
      return e.message = std::string("cannot read: ") + std::strerror(why), false;
    }
    if (n == 0) break;
    const size_t from = first ? 0 : bytes.size();
    first = false;
    bytes.append(buf, static_cast<size_t>(n));
    const bool binary = !limits.binary_magic.empty() && bytes.starts_with(limits.binary_magic);
    const size_t max = binary ? limits.binary_max_bytes : limits.max_bytes;
    if (bytes.size() > max) {
      ::close(fd);
      bytes.clear();
      e.message = "larger than the limit of " + size_text(max) +
                  (S_ISREG(st.st_mode) ? "" : " (an input without end?)");
      return false;
    }
    if (limits.max_line == 0 || binary) continue;
    // Each line ended in this read, then the one still open.
    for (size_t i = from; i <= bytes.size(); ++i) {
      const bool ends = i < bytes.size() && bytes[i] == '\n';
      if (i - line_start > limits.max_line) {
        ::close(fd);
        bytes.clear();
        e = line_too_long(line, limits.max_line);
        return false;
      }
      if (ends) ++line, line_start = i + 1;
    }
  }
  ::close(fd);
  return true;
}

}  // namespace mwc
