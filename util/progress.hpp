// Progress of a long step on stderr: on a terminal a bar redrawn in place
// with an estimate of the time left; anywhere else (a log, a pipe, a test's
// stream) one plain line when the step ends, so logs hold no \r or bars.
#pragma once
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace mwc {

class Progress {
 public:
  // `out`: where to draw (nothing when null); it is a terminal only when it
  // is std::cerr and stderr is a tty. `step`: what is counted ("traces
  // run", "campaigns"), `total`: how many there will be.
  Progress(std::ostream* out, std::string step, size_t total);
  // Draws `done` of the total, then `what` (the item under way). At the
  // total, ends the bar (terminal) or prints the plain line (log).
  void update(size_t done, const std::string& what = "");
  // Returns whether it draws a bar (a terminal) rather than plain lines.
  bool terminal() const { return tty_; }

  // Returns an estimate of the time left, "1:05" (minutes:seconds) or
  // "2:03:10", from `elapsed` seconds for `done` of `total`; "" before the
  // first item is done.
  static std::string eta(double elapsed, size_t done, size_t total);

 private:
  std::ostream* out_;
  std::string step_;
  size_t total_;
  bool tty_ = false, ended_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace mwc
