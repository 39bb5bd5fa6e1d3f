#include "adapters/kernel/console_keeper.hpp"

namespace mwc::kernel {

void ConsoleKeeper::add(std::string_view line) {
  line = line.substr(0, kLineCap);
  if (!opened_ && opens_account(line)) opened_ = true;
  if (opened_ && !full_) {
    // Whole lines only: the summary reads lines.
    if (from_fault_.size() + line.size() + 1 > kFaultCap) full_ = true;
    else from_fault_.append(line).push_back('\n');
  }
  if (!opened_) tail_[lines_ % kTail].assign(line);  // reuses the slot's bytes
  ++lines_;
}

std::string ConsoleKeeper::account() const {
  if (opened_) return console_account(from_fault_);
  std::string last;
  for (size_t i = lines_ > kTail ? lines_ - kTail : 0; i < lines_; ++i)
    last.append(tail_[i % kTail]).push_back('\n');
  return console_account(last);
}

size_t ConsoleKeeper::held() const {
  size_t n = from_fault_.size();
  for (const std::string& l : tail_) n += l.size();
  return n;
}

}  // namespace mwc::kernel
