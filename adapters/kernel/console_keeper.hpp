// A guest's console as a report tells it (console_account()), kept as its
// lines come and in bounded memory: a guest may print for hours (a device
// campaign's progress lines) or without end (a kernel warning storm), and
// the harness that watches it must not grow with it. Kept: the text from
// the first line that opens the account (opens_account()), up to kFaultCap
// bytes, and the last kTail lines, each up to kLineCap bytes: all that
// console_account() reads.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "adapters/kernel/oops.hpp"

namespace mwc::kernel {

class ConsoleKeeper {
 public:
  static constexpr size_t kFaultCap = size_t{1} << 20;
  static constexpr size_t kLineCap = 4096;
  static constexpr size_t kTail = kAccountTail;  // console_account()'s last lines

  // Takes the console's next line (without its '\n').
  void add(std::string_view line);
  // Returns console_account() of the lines added, each ending in '\n': the
  // same text wherever no line was longer than kLineCap and the account's
  // text (from its first line on) stayed under kFaultCap; beyond, the
  // account of what was kept (a line's first kLineCap bytes, the first
  // kFaultCap bytes from the fault on, at a line's end).
  std::string account() const;
  // Returns how many bytes of text are held (bounded by the caps).
  size_t held() const;

 private:
  std::string from_fault_;  // from the line that opened the account
  bool opened_ = false, full_ = false;
  std::array<std::string, kTail> tail_;  // a ring: the last lines
  size_t lines_ = 0;                     // lines added
};

}  // namespace mwc::kernel
