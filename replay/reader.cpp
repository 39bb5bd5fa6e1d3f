#include "replay/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "refmodel/binary_codec.hpp"
#include "refmodel/mwb_record.hpp"

namespace mwc::replay {
namespace {

// Reads up to n bytes; returns how many (fewer only at the end), or -1.
ssize_t read_full(int fd, uint8_t* p, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

Reader::Reader(const std::string& path, size_t chunk) : path_(path), chunk_(chunk) {
  const auto fail = [&](size_t col, const std::string& what) {
    error_ = path_ + ":1:" + std::to_string(col) + ": error: " + what;
  };
  if (path == "-") {
    fd_ = 0;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) { fail(1, std::string("cannot open: ") + std::strerror(errno)); return; }
    own_fd_ = true;
  }
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  uint8_t h[kMwbHeaderSize];
  const ssize_t n = read_full(fd_, h, sizeof h);
  if (n < 0) { fail(1, std::string("cannot read: ") + std::strerror(errno)); return; }
  // The header is checked by the whole-trace decoder, so both say the same.
  auto r = decode_mwb({h, static_cast<size_t>(n)});
  if (auto* e = std::get_if<DecodeError>(&r)) { fail(e->offset + 1, e->message); return; }
  for (int k = 0; k < kHandleKinds; ++k)
    caps_[k] = std::clamp(static_cast<uint32_t>(mwb::detail::le(h + 8 + 4 * k, 4)), 1u, kMaxCap[k]);
  strtab_ = static_cast<uint32_t>(mwb::detail::le(h + 28, 4));
  version_ = static_cast<uint16_t>(mwb::detail::le(h + 4, 2));
  if (regular_) {
    const uint64_t body = static_cast<uint64_t>(st.st_size) - kMwbHeaderSize;
    records_ = records_left_ = body - std::min<uint64_t>(strtab_, body);
  }
}

Reader::~Reader() {
  if (own_fd_) ::close(fd_);
}

bool Reader::for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed,
                            uint64_t begin, uint64_t end) {
  if (!ok()) return false;
  if (!regular_) {
    error_ = path_ + ":1:1: error: cannot seek: not a regular file";
    return false;
  }
  if (::lseek(fd_, static_cast<off_t>(kMwbHeaderSize + begin), SEEK_SET) < 0) {
    error_ = path_ + ":1:1: error: cannot seek: " + std::strerror(errno);
    return false;
  }
  end = std::min(end, records_);
  records_left_ = end > begin ? end - begin : 0;
  return for_each_chunk(feed);
}

bool Reader::for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed) {
  if (!ok()) return false;
  const size_t held = regular_ ? 0 : strtab_;
  size_t lo = 0, hi = 0;
  bool eof = false;
  while (!eof) {
    // Keep the unused tail, then fill up to one chunk more.
    if (lo) std::memmove(buf_.data(), buf_.data() + lo, hi - lo);
    hi -= lo;
    lo = 0;
    size_t want = chunk_;
    if (regular_) want = static_cast<size_t>(std::min<uint64_t>(want, records_left_));
    if (buf_.size() < hi + want) buf_.resize(hi + want);
    const ssize_t n = want ? read_full(fd_, buf_.data() + hi, want) : 0;
    if (n < 0) {
      error_ = path_ + ":1:1: error: cannot read: " + std::strerror(errno);
      return false;
    }
    hi += static_cast<size_t>(n);
    if (regular_) records_left_ -= static_cast<uint64_t>(n);
    eof = static_cast<size_t>(n) < want || want == 0;
    // On a pipe the last `held` bytes may be the string table.
    const size_t usable = hi > held ? hi - held : 0;
    if (usable > lo) {
      const size_t used = feed({buf_.data() + lo, usable - lo});
      lo += used;
      read_ += used;
    }
  }
  return true;
}

}  // namespace mwc::replay
