#include "adapters/kernel/kmsg.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace mwc::kernel {

std::string kmsg_text(std::string_view record) {
  const size_t semi = record.find(';');
  if (semi == std::string_view::npos) return {};
  // The text ends at the record's first line end; the dictionary follows.
  std::string_view text = record.substr(semi + 1);
  text = text.substr(0, text.find('\n'));
  std::string out;
  out.reserve(text.size() + 1);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 4, "\\x0a") == 0) {
      out += '\n';
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out + "\n";
}

KernelLog::KernelLog() {
  fd_ = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ >= 0 && lseek(fd_, 0, SEEK_END) < 0) close(fd_), fd_ = -1;
}

KernelLog::~KernelLog() {
  if (fd_ >= 0) close(fd_);
}

std::string KernelLog::read_new() {
  std::string out;
  if (fd_ < 0) return out;
  // One record per read; a record is at most 8 KiB (the kernel's
  // CONSOLE_EXT_LOG_MAX), so none is too long for the buffer.
  std::array<char, 8192> buf{};
  for (;;) {
    const ssize_t n = read(fd_, buf.data(), buf.size());
    if (n > 0) {
      out += kmsg_text(std::string_view(buf.data(), static_cast<size_t>(n)));
    } else if (n < 0 && (errno == EINTR || errno == EPIPE)) {
      continue;  // EPIPE: records were overwritten before this read; the next read goes on after them
    } else {
      return out;  // EAGAIN: nothing more now
    }
  }
}

}  // namespace mwc::kernel
