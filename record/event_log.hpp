// The log a recording writes (events.def), read back: what the recorded
// program called, in the order it called it, with what each call returned.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "record/events.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::record {

// Returns an event kind's name in the log.
std::string_view event_name(EventKind k);

struct Event {
  EventKind kind{};
  uint32_t line = 0;  // in the log, 1-based
  uint32_t pid = 0;   // the recorded process
  std::array<uint64_t, kMaxEventFields> v{};  // in the order of the event's fields

  // Returns the event as its typed struct: e.as<ev::mr>().rkey. Asking for
  // another kind than the event's is a bug of the caller (std::logic_error).
  template <class T>
  T as() const {
    if (kind != T::kind) throw std::logic_error("a " + std::string(event_name(kind)) + " event read as another");
    return T::of(v);
  }
};

// Calls f(ev::<kind>) with the event as its typed struct and returns what f
// returns; a visitor without an overload for some event fails to compile.
template <class F>
decltype(auto) visit(const Event& e, F&& f) {
  switch (e.kind) {
#define E(name, summary) \
  case EventKind::name:  \
    return f(ev::name::of(e.v));
    MWC_RECORD_EVENTS(E)
#undef E
  }
  __builtin_unreachable();
}

// Returns the events of a log, or the first error in it (line and column).
std::variant<std::vector<Event>, ParseError> parse_log(std::string_view text);

}  // namespace mwc::record
