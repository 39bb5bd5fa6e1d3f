#include "findings/baseline.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "findings/json_fields.hpp"
#include "refmodel/text_codec.hpp"
#include "util/read_input.hpp"

namespace mwc::findings {

nlohmann::ordered_json to_json(const Finding& f) {
  nlohmann::ordered_json j{{"id", f.id},
                           {"severity", name(f.severity)},
                           {"summary", f.summary},
                           {"rule", f.rule_id},
                           {"source", f.source},
                           {"statement", f.statement},
                           {"op", f.op},
                           {"device_outcome", f.device_outcome},
                           {"expected_outcome", f.expected_outcome},
                           {"yardstick", f.yardstick},
                           {"signature", f.signature},
                           {"devices", f.devices},
                           {"absent_on", f.absent_on}};
  auto& traces = j["traces"] = nlohmann::ordered_json::array();
  for (const auto& t : f.traces) traces.push_back({{"trace", t.trace}, {"op", t.op + 1}});
  j["reproducer"] = print_text(f.reproducer);
  j["ops"] = f.reproducer.ops.size();
  j["shrunk_from"] = f.ops_before;
  j["device_runs"] = f.runs;
  j["minimal"] = f.minimal;
  if (!f.shrink_note.empty()) j["shrink_note"] = f.shrink_note;
  if (!f.kernel.empty()) j["kernel"] = f.kernel, j["kernel_trace"] = f.kernel_trace;
  if (!f.kernel_same_as.empty()) j["kernel_same_as"] = f.kernel_same_as;
  j["exports"] = f.exports;
  return j;
}

std::optional<std::vector<Stored>> read_stored(const std::string& path, std::string& err) {
  std::string text;
  if (InputError e; !read_input(path, kReportLimits, text, e)) {
    err = fmt::format("{}:{}:{}: error: {}", path, e.line, e.col, e.message);
    return std::nullopt;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // The byte offset of the error, as a line and a column.
    const size_t at = std::min<size_t>(e.byte ? e.byte - 1 : 0, text.size());
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    const size_t nl = text.rfind('\n', at ? at - 1 : 0);
    const size_t col = at - (nl == std::string::npos || at == 0 ? 0 : nl + 1) + 1;
    // Read as a baseline (--baseline) or as findings to export (--from).
    err = fmt::format("{}:{}:{}: error: not JSON, as a report.json of mwcheck conform --device is", path, line, col);
    return std::nullopt;
  }
  if (!j.is_object() || !j.contains("findings") || !j["findings"].is_array() ||
      count_field(j, "findings_schema") != kFindingsSchema) {
    err = fmt::format("{}:1:1: error: not a report of mwcheck conform --device with findings (schema {})",
                      path, kFindingsSchema);
    return std::nullopt;
  }
  std::vector<Stored> r;
  for (const auto& f : j["findings"]) {
    if (!f.is_object() || !f.contains("id") || !f["id"].is_string()) {
      err = fmt::format("{}:1:1: error: a finding without an id", path);
      return std::nullopt;
    }
    const auto str = [&](const char* k) { return text_field(f, k); };
    Stored s{f["id"].get<std::string>(), str("severity"), str("summary"), {}, str("rule"), str("source"),
             str("yardstick"), str("device_outcome"), str("reproducer")};
    for (const auto& d : array_field(f, "devices"))
      if (d.is_string()) s.devices.push_back(d.get<std::string>());
    r.push_back(std::move(s));
  }
  return r;
}

BaselineDiff compare(const std::vector<Finding>& now, const std::vector<Stored>& before) {
  BaselineDiff d;
  for (const Finding& f : now) {
    const bool was = std::any_of(before.begin(), before.end(), [&](const Stored& s) { return s.id == f.id; });
    (was ? d.unchanged : d.added).push_back(&f);
  }
  for (const Stored& s : before)
    if (std::none_of(now.begin(), now.end(), [&](const Finding& f) { return f.id == s.id; }))
      d.fixed.push_back(s);
  return d;
}

}  // namespace mwc::findings
