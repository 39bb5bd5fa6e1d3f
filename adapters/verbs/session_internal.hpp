// What the verbs session's files share: sizes, waiting, and the outcome of
// a plain return. Private to adapters/verbs/session_*.cpp.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>

#include "refmodel/outcome.hpp"

namespace mwc::verbs::session_detail {

using Clock = std::chrono::steady_clock;
inline constexpr size_t kScratch = 1u << 20;  // the peer's local buffer
inline constexpr uint32_t kInline = 64;       // sends up to this size go inline

// Waits a little before a completion queue is polled again.
inline void pause() { std::this_thread::sleep_for(std::chrono::microseconds(100)); }

// Returns the outcome of a return `r` and completion status `st`.
inline Outcome with(Result r, WcStatus st = WcStatus::kNONE) {
  Outcome o;
  o.ret = r;
  o.wc = st;
  return o;
}

}  // namespace mwc::verbs::session_detail
