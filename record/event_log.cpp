#include "record/event_log.hpp"

#include <charconv>

#include <fmt/format.h>

namespace mwc::record {

std::string_view event_name(EventKind k) { return kEventNames[static_cast<int>(k)]; }

std::variant<std::vector<Event>, ParseError> parse_log(std::string_view text) {
  std::vector<Event> out;
  uint32_t line_no = 0;
  auto error = [&](size_t col, std::string msg) {
    return ParseError{line_no, static_cast<uint32_t>(col + 1), std::move(msg)};
  };
  bool header = false;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty()) continue;
    if (line.starts_with("mwcheck-record ")) {
      // One header per recorded process; they all must speak this version.
      if (line != fmt::format("mwcheck-record {}", MWC_RECORD_VERSION))
        return error(15, fmt::format("this is a recording of version {}; mwcheck reads version {}",
                                     line.substr(15), MWC_RECORD_VERSION));
      header = true;
      continue;
    }
    if (!header) return error(0, "not a recording: the header `mwcheck-record 1` is missing");
    const size_t sp = line.find(' ');
    const std::string_view name = line.substr(0, sp);
    int k = 0;
    while (k < kEventKinds && kEventNames[k] != name) ++k;
    if (k == kEventKinds) return error(0, fmt::format("unknown event '{}'", name));
    Event e{static_cast<EventKind>(k), line_no, 0, {}};
    size_t at = name.size();
    uint64_t pid = 0;
    const auto fields = kEventFields[k];
    for (int i = -1;; ++i) {
      const std::string_view field = i < 0 ? std::string_view("pid")
                                     : i < static_cast<int>(fields.size()) ? fields[i]
                                                                           : std::string_view();
      if (field.empty()) {
        if (at < line.size()) return error(at, "more fields than the event has");
        break;
      }
      if (at >= line.size() || line[at] != ' ')
        return error(at, fmt::format("field '{}' is missing", field));
      ++at;
      const size_t end = std::min(line.find(' ', at), line.size());
      const std::string_view tok = line.substr(at, end - at);
      if (!tok.starts_with(field) || tok.size() <= field.size() || tok[field.size()] != '=')
        return error(at, fmt::format("expected '{}=HEX'", field));
      const std::string_view num = tok.substr(field.size() + 1);
      uint64_t& value = i < 0 ? pid : e.v[i];
      const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), value, 16);
      if (ec != std::errc() || p != num.data() + num.size())
        return error(at + field.size() + 1, fmt::format("'{}' is not a 64-bit hexadecimal number", num));
      at = end;
    }
    e.pid = static_cast<uint32_t>(pid);
    out.push_back(e);
  }
  if (!header) return ParseError{1, 1, "not a recording: the header `mwcheck-record 1` is missing"};
  return out;
}

}  // namespace mwc::record
