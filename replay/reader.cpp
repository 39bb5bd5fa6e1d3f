#include "replay/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cerrno>
#include <cstring>

#include "refmodel/binary_codec.hpp"
#include "refmodel/mwb_record.hpp"
#include "replay/read_ahead.hpp"
#include "util/fd_read.hpp"

namespace mwc::replay {
Reader::Reader(const std::string& path, size_t chunk, Ahead ahead)
    : path_(path), ahead_(ahead), chunk_(chunk) {
  if (path == kStdioPath) {
    fd_ = 0;
  } else {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) { fail(0, std::string("cannot open: ") + std::strerror(errno)); return; }
    own_fd_ = true;
  }
  struct stat st {};
  regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
  if (regular_) {  // the file starts where the descriptor stands (stdin need not be at 0)
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    regular_ = at >= 0 && at <= st.st_size;
    start_ = regular_ ? static_cast<uint64_t>(at) : 0;
    size_ = regular_ ? static_cast<uint64_t>(st.st_size) - start_ : 0;
  }
  uint8_t h[kMwbHeaderSize];
  const ssize_t n = read_full(fd_, h, sizeof h);
  if (n < 0) { read_error(); return; }
  // The header is checked by the whole-trace decoder's own checks, so both say the same.
  auto r = decode_header({h, static_cast<size_t>(n)});
  if (auto* e = std::get_if<DecodeError>(&r)) { fail(e->offset, e->message); return; }
  header_ = std::get<MwbHeader>(r);
  for (int k = 0; k < kHandleKinds; ++k) caps_[k] = std::clamp(header_.caps[k], 1u, kMaxCap[k]);
  sum_ = Checksum(trailer_hash(version()));
  sum_.update(h);
  if (!regular_) return;
  // A regular file's end is known now: one cut short is refused before any record runs.
  if (auto e = check_size(header_, size_)) { fail(e->offset, e->message); return; }
  uint64_t after = header_.strtab;
  if (has_trailer(version())) {
    std::array<uint8_t, kMwbTrailerSize> t{};
    const off_t at = static_cast<off_t>(start_ + size_ - t.size());
    const ssize_t got = ::pread(fd_, t.data(), t.size(), at);
    if (got < 0) { read_error(); return; }
    if (static_cast<size_t>(got) != t.size()) { fail(0, "cannot read: the file got shorter while read"); return; }
    auto tr = decode_trailer(t, size_);
    if (auto* e = std::get_if<DecodeError>(&tr)) { fail(e->offset, e->message); return; }
    trailer_ = std::get<MwbTrailer>(tr);
    after += kMwbTrailerSize;
  }
  const uint64_t body = size_ - kMwbHeaderSize;
  records_ = records_left_ = body - std::min(after, body);
}

Reader::~Reader() {
  if (own_fd_) ::close(fd_);
}

bool Reader::fail(uint64_t offset, const std::string& what) {
  error_ = path_ + ":1:" + std::to_string(offset + 1) + ": error: " + what;
  return false;
}

bool Reader::read_error() { return fail(0, std::string("cannot read: ") + std::strerror(errno)); }

bool Reader::for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed,
                            uint64_t begin, uint64_t end) {
  if (!ok()) return false;
  if (!regular_) return fail(0, "cannot seek: not a regular file");
  if (::lseek(fd_, static_cast<off_t>(start_ + kMwbHeaderSize + begin), SEEK_SET) < 0)
    return fail(0, std::string("cannot seek: ") + std::strerror(errno));
  end = std::min(end, records_);
  records_left_ = end > begin ? end - begin : 0;
  return pump(feed, false);
}

bool Reader::for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed) {
  return ok() && pump(feed, has_trailer(version()));
}

bool Reader::pump(const std::function<size_t(std::span<const uint8_t>)>& feed, bool check) {
  // On a pipe the last `held` bytes may be the string table and trailer.
  const size_t trailer = has_trailer(version()) ? kMwbTrailerSize : 0;
  const size_t held = regular_ ? 0 : header_.strtab + trailer;
  // Read ahead into buffers that have room for them (a header may say
  // anything: a larger table is held as it comes, below).
  const bool may = ahead_ != Ahead::never && held <= kMaxHeldAhead;  // read ahead, at once or later
  if (may && ahead_ == Ahead::always) {
    went_ahead_ = true;
    return pump_ahead(feed, check, held, trailer, {});
  }
  // Else the bytes are read here, the reading and the feed timed while
  // reading ahead may still pay.
  std::chrono::steady_clock::duration reading{}, feeding{};
  int chunks = 0;
  size_t lo = 0, hi = 0, summed = 0;  // buf_[lo, hi) unused; buf_[0, summed) in sum_
  uint64_t got = 0;                   // bytes read after the header
  bool eof = false;
  while (!eof) {
    if (may && chunks >= kProbeChunks && feeding > kAheadWhen * reading) {
      // Feeding is behind: the rest is read ahead, the bytes not fed first.
      went_ahead_ = true;
      const std::span<const uint8_t> unsummed =
          check ? std::span<const uint8_t>{buf_.data() + summed, hi - summed} : std::span<const uint8_t>{};
      return pump_ahead(feed, check, held, trailer, {{buf_.data() + lo, hi - lo}, unsummed, got});
    }
    const auto t0 = may ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    // Keep the unused tail, then fill up to one chunk more.
    if (lo) std::memmove(buf_.data(), buf_.data() + lo, hi - lo);
    hi -= lo, summed -= lo, lo = 0;
    size_t want = chunk_;
    if (regular_) want = static_cast<size_t>(std::min<uint64_t>(want, records_left_));
    if (buf_.size() < hi + want) buf_.resize(hi + want);
    // A pipe's bytes are fed as they come, so that its writer fills it
    // again while they run (waiting for a whole chunk, each would wait
    // for the other).
    const ssize_t n = !want ? 0 : regular_ ? read_full(fd_, buf_.data() + hi, want)
                                           : read_some(fd_, buf_.data() + hi, want);
    if (n < 0) return read_error();
    hi += static_cast<size_t>(n);
    got += static_cast<uint64_t>(n);
    if (regular_) records_left_ -= static_cast<uint64_t>(n);
    eof = regular_ ? static_cast<size_t>(n) < want || want == 0 : n == 0;
    const size_t usable = hi > held ? hi - held : 0;
    if (check && usable > summed) {
      sum_.update({buf_.data() + summed, usable - summed});
      summed = usable;
    }
    const auto t1 = may ? std::chrono::steady_clock::now() : t0;
    if (usable > lo) {
      const size_t used = feed({buf_.data() + lo, usable - lo});
      lo += used;
      read_ += used;
    }
    if (may) reading += t1 - t0, feeding += std::chrono::steady_clock::now() - t1, ++chunks;
  }
  if (!check) return true;
  if (regular_) return finish_file();
  // A pipe: its end is known only now.
  const uint64_t size = kMwbHeaderSize + got;
  if (auto e = check_size(header_, size)) return fail(e->offset, e->message);
  sum_.update({buf_.data() + summed, hi - trailer - summed});
  return finish(buf_.data() + hi - trailer, trailer, size);
}

// Feeds the records from a thread that reads (and sums) them a chunk
// ahead; on a pipe the last `held` bytes read are not fed, the last
// `trailer` not summed, as pump() does. Returns false after a read error or
// a file not as written.
bool Reader::pump_ahead(const std::function<size_t(std::span<const uint8_t>)>& feed, bool check,
                        size_t held, size_t trailer, ReadSoFar before) {
  // A feed leaves less than a record, and the held bytes wait: what does
  // not fit before the next chunk's bytes goes with them into buf_.
  const size_t headroom = mwb::kMaxRecordSize + held;
  ReadAhead ahead(fd_, regular_ ? records_left_ : ~uint64_t{0}, chunk_, headroom, check ? &sum_ : nullptr,
                  regular_ ? 0 : trailer, !regular_, before.unsummed);
  const uint8_t* tail = before.unfed.data();  // the bytes read and not fed
  size_t tail_size = before.unfed.size();
  uint64_t got = before.got;  // bytes read after the header
  bool holds = false;  // a chunk is taken and not given back
  for (bool last = false; !last;) {
    const ReadAhead::Chunk c = ahead.next();
    if (c.error) {
      errno = c.error;
      return read_error();
    }
    got += c.size;
    if (regular_) records_left_ -= c.size;
    last = c.last;
    std::span<const uint8_t> rec;
    if (tail_size <= headroom) {
      if (tail_size) std::memmove(c.data - tail_size, tail, tail_size);
      rec = {c.data - tail_size, tail_size + c.size};
    } else {
      std::vector<uint8_t> joined(tail, tail + tail_size);
      joined.insert(joined.end(), c.data, c.data + c.size);
      buf_ = std::move(joined);
      rec = buf_;
    }
    if (holds) ahead.done();  // the chunk before: its tail is copied
    holds = true;
    const size_t usable = rec.size() > held ? rec.size() - held : 0;
    const size_t used = usable ? feed(rec.first(usable)) : 0;
    read_ += used;
    tail = rec.data() + used;
    tail_size = rec.size() - used;
  }
  if (!check) return true;
  if (regular_) return finish_file();
  // A pipe: its end is known only now; the thread summed all but the trailer.
  const uint64_t size = kMwbHeaderSize + got;
  if (auto e = check_size(header_, size)) return fail(e->offset, e->message);
  return finish(tail + tail_size - trailer, trailer, size);
}

// Reads (and sums) a regular file's string table, then checks its trailer,
// read at open.
bool Reader::finish_file() {
  for (uint64_t left = header_.strtab; left > 0;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left, chunk_));
    if (buf_.size() < want) buf_.resize(want);
    const ssize_t n = read_full(fd_, buf_.data(), want);
    if (n < 0) return read_error();
    if (static_cast<size_t>(n) != want) return fail(0, "cannot read: the file got shorter while read");
    sum_.update({buf_.data(), want});
    left -= want;
  }
  return finish(nullptr, 0, size_);
}

// Checks the trailer (the one at `tail`, or the one read at open) against
// the checksum of every byte before it.
bool Reader::finish(const uint8_t* tail, size_t tail_size, uint64_t size) {
  if (tail) {
    auto tr = decode_trailer(std::span<const uint8_t, kMwbTrailerSize>(tail, tail_size), size);
    if (auto* e = std::get_if<DecodeError>(&tr)) return fail(e->offset, e->message);
    trailer_ = std::get<MwbTrailer>(tr);
  }
  if (auto e = check_checksum(*trailer_, size, sum_.digest())) return fail(e->offset, e->message);
  file_size_ = size;
  return true;
}

std::string Reader::check_ops(uint64_t ops) const {
  if (!trailer_ || !file_size_) return "";
  const auto e = mwc::check_ops(*trailer_, file_size_, ops);
  return e ? path_ + ":1:" + std::to_string(e->offset + 1) + ": error: " + e->message : "";
}

}  // namespace mwc::replay
