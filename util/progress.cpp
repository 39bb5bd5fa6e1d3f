#include "util/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace mwc {

Progress::Progress(std::ostream* out, std::string step, size_t total)
    : out_(out), step_(std::move(step)), total_(total), start_(std::chrono::steady_clock::now()) {
  tty_ = out_ == &std::cerr && isatty(STDERR_FILENO);
}

std::string Progress::eta(double elapsed, size_t done, size_t total) {
  if (done == 0 || done >= total || elapsed <= 0) return "";
  const auto left = static_cast<long long>(elapsed / static_cast<double>(done) * static_cast<double>(total - done) + 0.5);
  char b[32];
  if (left >= 3600)
    std::snprintf(b, sizeof b, "%lld:%02lld:%02lld", left / 3600, left / 60 % 60, left % 60);
  else
    std::snprintf(b, sizeof b, "%lld:%02lld", left / 60, left % 60);
  return b;
}

void Progress::update(size_t done, const std::string& what) {
  if (!out_ || ended_) return;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char b[256];
  if (!tty_) {
    if (done < total_) return;
    std::snprintf(b, sizeof b, "%zu of %zu %s in %.1f s\n", done, total_, step_.c_str(), secs);
    *out_ << b << std::flush;
    ended_ = true;
    return;
  }
  const size_t w = 30, fill = total_ ? std::min(done, total_) * w / total_ : w;
  const std::string left = eta(secs, done, total_);
  std::snprintf(b, sizeof b, "] %zu/%zu %s%s%s  ", done, total_, step_.c_str(), left.empty() ? "" : ", ETA ",
                left.c_str());
  std::string name = what.substr(0, 40);
  name.resize(40, ' ');
  *out_ << "\r[" << std::string(fill, '#') << std::string(w - fill, '.') << b << name << std::flush;
  if (done >= total_) {
    std::snprintf(b, sizeof b, "\r%zu of %zu %s in %.1f s%*s\n", done, total_, step_.c_str(), secs, 60, "");
    *out_ << b << std::flush;
    ended_ = true;
  }
}

}  // namespace mwc
