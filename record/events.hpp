// The events of a recording (events.def) as types: their kinds, their names
// and field names in the log, and one struct per event with a member per
// field (ev::mr{}.rkey), which the interposer fills and the converter reads,
// so a field name that events.def lacks does not compile.
//
// Header-only, without allocation or exceptions: the interposer includes it
// inside the programs it records.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string_view>

#include "record/events.def"

namespace mwc::record {

enum class EventKind : uint8_t {
#define E(name, summary) name,
  MWC_RECORD_EVENTS(E)
#undef E
};
inline constexpr int kEventKinds = 0
#define E(name, summary) +1
    MWC_RECORD_EVENTS(E)
#undef E
    ;
// The most fields an event has (Event holds this many values).
inline constexpr int kMaxEventFields = 16;

namespace ev {
// Each struct: its kind, its fields' names in the log's order, a member per
// field (an aggregate: ev::pd{.pd = p, .rc = 0}), values() in the log's
// order, and of(values), the struct those values fill.
#define MWC_EV_NAME(f) #f,
#define MWC_EV_MEMBER(f) uint64_t f = 0;
#define MWC_EV_VALUE(f) f,
#define MWC_EV_LOAD(f) e.f = v[i++];
#define E(name, summary)                                                           \
  struct name {                                                                    \
    static constexpr EventKind kind = EventKind::name;                             \
    static constexpr std::string_view kFields[] = {MWC_EVENT_FIELDS_##name(MWC_EV_NAME)}; \
    MWC_EVENT_FIELDS_##name(MWC_EV_MEMBER)                                         \
    std::array<uint64_t, std::size(kFields)> values() const {                      \
      return {MWC_EVENT_FIELDS_##name(MWC_EV_VALUE)};                              \
    }                                                                              \
    static struct name of(std::span<const uint64_t> v) {                           \
      struct name e;                                                               \
      size_t i = 0;                                                                \
      MWC_EVENT_FIELDS_##name(MWC_EV_LOAD) return e;                               \
    }                                                                              \
  };                                                                               \
  static_assert(std::size(name::kFields) <= kMaxEventFields, #name " has too many fields");
MWC_RECORD_EVENTS(E)
#undef E
#undef MWC_EV_NAME
#undef MWC_EV_MEMBER
#undef MWC_EV_VALUE
#undef MWC_EV_LOAD
}  // namespace ev

// The name of each event kind in the log, and its fields' names in order.
inline constexpr std::string_view kEventNames[] = {
#define E(name, summary) #name,
    MWC_RECORD_EVENTS(E)
#undef E
};
inline constexpr std::span<const std::string_view> kEventFields[] = {
#define E(name, summary) ev::name::kFields,
    MWC_RECORD_EVENTS(E)
#undef E
};

// The longest line an event makes in the log.
inline constexpr size_t kMaxEventLine = 640;

// Writes the log line of event `e` of process `pid` into `line`, newline
// included and no NUL; returns its length.
template <class T>
size_t event_line(char (&line)[kMaxEventLine], unsigned pid, const T& e) {
  const std::string_view name = kEventNames[static_cast<int>(T::kind)];
  size_t n = static_cast<size_t>(
      std::snprintf(line, kMaxEventLine, "%.*s pid=%x", int(name.size()), name.data(), pid));
  const auto values = e.values();
  for (size_t i = 0; i < values.size(); ++i)
    n += static_cast<size_t>(std::snprintf(line + n, kMaxEventLine - n, " %.*s=%llx",
                                           int(T::kFields[i].size()), T::kFields[i].data(),
                                           static_cast<unsigned long long>(values[i])));
  line[n++] = '\n';
  return n;
}

}  // namespace mwc::record
