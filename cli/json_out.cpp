#include "cli/json_out.hpp"

#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <ctime>

#include <fmt/format.h>

#include "findings/baseline.hpp"
#include "refmodel/rules.hpp"

namespace mwc::cli {

std::string_view tool_version() { return MWCHECK_VERSION; }

bool reproducible() { return std::getenv("SOURCE_DATE_EPOCH") != nullptr; }

double report_seconds(double seconds) { return reproducible() ? 0.0 : seconds; }

std::optional<std::string> report_time(std::string& why) {
  std::time_t t = std::time(nullptr);
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH")) {
    // A decimal count of seconds since 1970, nothing else (a malformed
    // value is an error, not a silent fallback to the clock).
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(e, &end, 10);
    if (*e == '\0' || *end != '\0' || errno == ERANGE || v < 0 || v > 253402300799LL || *e == '+' || *e == ' ') {
      why = fmt::format("SOURCE_DATE_EPOCH='{}' is no number of seconds since 1970-01-01 UTC", e);
      return std::nullopt;
    }
    t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return std::string(buf);
}

nlohmann::ordered_json report_header(std::string_view kind, const Provenance& p) {
  nlohmann::ordered_json j;
  j["findings_schema"] = findings::kFindingsSchema;
  j["kind"] = kind;
  j["tool"] = {{"name", "mwcheck"}, {"version", tool_version()}};
  j["created"] = p.created;
  j["command"] = nlohmann::ordered_json::array();
  j["command"].push_back("mwcheck");
  for (const auto& a : p.command) j["command"].push_back(a);
  return j;
}

nlohmann::ordered_json mismatch_json(const Mismatch& m) {
  return {{"op", m.op + 1}, {"where", m.where}, {"text", m.text},
          {"observed", m.observed}, {"expected", m.expected}, {"rule", m.rule}};
}

nlohmann::ordered_json outcome_json(const Outcome& o) {
  const RuleDesc& rd = rule_desc(o.rule);
  return {{"outcome", to_text(o)}, {"rule", rd.id}, {"source", rd.source}};
}

nlohmann::ordered_json seconds_json(double s) {
  return std::isfinite(s) ? nlohmann::ordered_json(s) : nlohmann::ordered_json();
}

void print_json(std::ostream& out, const nlohmann::ordered_json& j) {
  // Names from the file system need not be UTF-8: such bytes print as U+FFFD.
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
}

}  // namespace mwc::cli
