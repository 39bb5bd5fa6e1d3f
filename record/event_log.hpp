// The log a recording writes (events.def), read back: what the recorded
// program called, in the order it called it, with what each call returned.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "record/events.def"
#include "refmodel/text_codec.hpp"

namespace mwc::record {

enum class EventKind : uint8_t {
#define E(name, fields, summary) name,
  MWC_RECORD_EVENTS(E)
#undef E
};
inline constexpr int kEventKinds = 0
#define E(name, fields, summary) +1
    MWC_RECORD_EVENTS(E)
#undef E
    ;
inline constexpr int kMaxEventFields = 16;

// Returns an event kind's name and its fields in order (events.def).
std::string_view event_name(EventKind k);
std::string_view event_fields(EventKind k);

struct Event {
  EventKind kind{};
  uint32_t line = 0;  // in the log, 1-based
  uint32_t pid = 0;   // the recorded process
  std::array<uint64_t, kMaxEventFields> v{};
  // Returns the value of field `name`; an unknown name is a programming
  // error (caught by the converter's tests), answered with 0.
  uint64_t operator[](std::string_view name) const;
};

// Returns the events of a log, or the first error in it (line and column).
std::variant<std::vector<Event>, ParseError> parse_log(std::string_view text);

}  // namespace mwc::record
