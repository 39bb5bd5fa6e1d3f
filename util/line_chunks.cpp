#include "util/line_chunks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/fd_read.hpp"

namespace mwc {

LineChunks::~LineChunks() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineChunks::open(const std::string& path, size_t max_line, InputError& e) {
  struct stat st {};
  fd_ = open_input(path, st, e);
  max_line_ = max_line;
  return fd_ >= 0;
}

void LineChunks::adopt(int fd, size_t max_line, std::string head) {
  fd_ = fd;
  max_line_ = max_line;
  carry_ = std::move(head);
}

bool LineChunks::next(std::string& chunk, size_t& first_line, InputError& e, size_t target) {
  e = {};
  chunk.swap(carry_);
  carry_.clear();
  first_line = line_;
  char buf[1 << 16];
  // Read until the chunk holds `target` bytes, then cut after its last newline.
  while (!eof_ && chunk.size() < target) {
    const ssize_t n = read_some(fd_, buf, sizeof buf);
    if (n < 0) return e.line = line_, e.message = std::string("cannot read: ") + std::strerror(errno), false;
    if (n == 0) eof_ = true;
    chunk.append(buf, static_cast<size_t>(n));
  }
  size_t cut = chunk.size();
  if (!eof_) {
    const size_t nl = chunk.rfind('\n');
    cut = nl == std::string::npos ? 0 : nl + 1;
  }
  carry_.assign(chunk, cut, std::string::npos);
  chunk.resize(cut);
  const auto too_long = [&] {
    e = line_too_long(line_, max_line_);
    return false;
  };
  size_t start = 0;
  for (size_t i = 0; i < chunk.size(); ++i) {
    if (chunk[i] != '\n') continue;
    if (i - start > max_line_) return too_long();
    ++line_;
    start = i + 1;
  }
  if (chunk.size() - start > max_line_ || carry_.size() > max_line_) return too_long();  // the last, unended line
  return !chunk.empty();
}

}  // namespace mwc
