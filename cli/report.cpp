#include "cli/report.hpp"

#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/atomic_file.hpp"
#include "util/output_dir.hpp"

namespace mwc::cli {
std::string xml_escape(std::string_view s) {
  std::string o;
  for (const char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\t': case '\n': case '\r': o += c; break;
      // Other control characters are no XML 1.0 at all, escaped or not.
      default: o += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    }
  }
  return o;
}

std::string junit_name(std::string_view s) {
  std::string o;
  for (const char c : s) o += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  return o.empty() ? "_" : o;
}

std::string junit_time(double seconds) {
  return reproducible() ? "0" : fmt::format("{:.3f}", seconds);
}

std::string json_report(const ConformResult& r) {
  nlohmann::ordered_json j = report_header("model", r.made);
  j["corpus"] = r.corpus;
  for (const auto& b : r.backends) {
    nlohmann::ordered_json jb{{"backend", b.name}, {"traces", nlohmann::ordered_json::array()}};
    for (const auto& t : b.traces) {
      nlohmann::ordered_json jt{{"trace", t.trace}, {"checked", t.checked}, {"passed", t.passed()}};
      jt["mismatches"] = nlohmann::json::array();
      for (const auto& m : t.mismatches)
        jt["mismatches"].push_back(mismatch_json(m));
      jb["traces"].push_back(jt);
    }
    for (int i = 0; i < kRuleCount; ++i) {
      const auto& rd = rule_descs()[i];
      jb["rules"].push_back({{"id", rd.id}, {"source", rd.source}, {"checked", b.rules[i].checked},
                             {"failed", b.rules[i].failed}});
    }
    j["backends"].push_back(jb);
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string junit_report(const ConformResult& r) {
  // One testsuite per backend, one testcase per trace; the classname is
  // dotted package.class as dashboards group it, so names are made safe.
  double total = 0;
  for (const auto& b : r.backends)
    for (const auto& t : b.traces) total += t.seconds;
  std::string x = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mwcheck conform\" "
                              "time=\"{}\">\n", junit_time(total));
  for (const auto& b : r.backends) {
    size_t failures = 0;
    double secs = 0;
    for (const auto& t : b.traces) failures += !t.passed(), secs += t.seconds;
    x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{}\">\n",
                     xml_escape(b.name), b.traces.size(), failures, junit_time(secs));
    for (const auto& t : b.traces) {
      x += fmt::format("    <testcase classname=\"conformance.{}\" name=\"{}\" time=\"{}\"", junit_name(b.name),
                       xml_escape(t.trace), junit_time(t.seconds));
      if (t.passed()) {
        x += "/>\n";
        continue;
      }
      x += fmt::format(">\n      <failure type=\"mismatch\" message=\"{} mismatch(es)\">", t.mismatches.size());
      for (const auto& m : t.mismatches)
        x += xml_escape(fmt::format("{}: {} => {}, expected {} (rule {})\n", m.where, m.text,
                                    m.observed, m.expected, m.rule));
      x += "</failure>\n    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

bool write_reports(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                   std::ostream& out, std::ostream& err) {
  std::string why;
  if (!make_output_dir(dir, why)) {
    err << fmt::format("{}:1:1: error: cannot write the reports: {}\n", dir, why);
    return false;
  }
  std::vector<OutputFile> set;
  std::string names;
  for (const auto& [name, text] : files) {
    set.push_back({(std::filesystem::path(dir) / name).string(), text});
    names += (names.empty() ? "" : " ") + set.back().path;
  }
  if (!write_files(set, why)) {
    err << fmt::format("{}:1:1: error: cannot write the reports (the old ones are left as they were): {}\n",
                       dir, why);
    return false;
  }
  out << fmt::format("reports: {}\n", names);
  return true;
}

}  // namespace mwc::cli
