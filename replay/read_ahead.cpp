#include "replay/read_ahead.hpp"

#include <algorithm>
#include <cerrno>

#include "util/fd_read.hpp"

namespace mwc::replay {

ReadAhead::ReadAhead(int fd, uint64_t total, size_t chunk, size_t headroom, Checksum* sum,
                     size_t unsummed, bool stream, std::span<const uint8_t> before)
    : fd_(fd), left_(total), chunk_(std::max<size_t>(chunk, 1)), headroom_(headroom), sum_(sum),
      unsummed_(unsummed), stream_(stream) {
  for (Slot& s : slots_) s.buf.resize(headroom_ + chunk_);
  if (sum_ && !before.empty()) add_to_sum(before.data(), before.size());
  thread_ = std::thread([this] { run(); });
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ReadAhead::run() {
  for (size_t k = 0;; ++k) {
    Slot& s = slots_[k % kSlots];
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !s.full; });
      if (stop_) return;
    }
    // The slot is this thread's until it is marked full again.
    Chunk c;
    c.data = s.buf.data() + headroom_;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk_, left_));
    const ssize_t n = !want ? 0 : stream_ ? read_some(fd_, c.data, want) : read_full(fd_, c.data, want);
    if (n < 0) {
      c.error = errno != 0 ? errno : EIO;
      c.last = true;
    } else {
      c.size = static_cast<size_t>(n);
      left_ -= c.size;
      c.last = stream_ ? c.size == 0 || left_ == 0 : c.size < want || left_ == 0;
      if (sum_ && c.size) add_to_sum(c.data, c.size);
    }
    {
      std::lock_guard lock(mu_);
      s.chunk = c;
      s.full = true;
    }
    cv_.notify_all();
    if (c.last) return;
  }
}

// Sums every byte read but the last unsummed_.size(), which wait in it.
void ReadAhead::add_to_sum(const uint8_t* p, size_t n) {
  const size_t keep = unsummed_.size();
  if (held_ + n <= keep) {
    std::copy(p, p + n, unsummed_.begin() + static_cast<long>(held_));
    held_ += n;
    return;
  }
  const size_t now = held_ + n - keep;  // sum these: the oldest waiting first
  const size_t waited = std::min(held_, now);
  if (waited) sum_->update({unsummed_.data(), waited});
  sum_->update({p, now - waited});
  std::copy(unsummed_.begin() + static_cast<long>(waited), unsummed_.begin() + static_cast<long>(held_),
            unsummed_.begin());
  std::copy(p + (now - waited), p + n, unsummed_.begin() + static_cast<long>(held_ - waited));
  held_ = keep;
}

ReadAhead::Chunk ReadAhead::next() {
  Slot& s = slots_[taken_ % kSlots];
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return s.full; });
  ++taken_;
  return s.chunk;
}

void ReadAhead::done() {
  {
    std::lock_guard lock(mu_);
    slots_[given_back_++ % kSlots].full = false;
  }
  cv_.notify_all();
}

}  // namespace mwc::replay
