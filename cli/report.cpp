#include "cli/report.hpp"

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
      default: o += c;
    }
  }
  return o;
}

std::string json_report(const ConformResult& r) {
  nlohmann::ordered_json j;
  j["corpus"] = r.corpus;
  for (const auto& b : r.backends) {
    nlohmann::ordered_json jb{{"backend", b.name}};
    for (const auto& t : b.traces) {
      nlohmann::ordered_json jt{{"trace", t.trace}, {"checked", t.checked}, {"passed", t.passed()}};
      jt["mismatches"] = nlohmann::json::array();
      for (const auto& m : t.mismatches)
        jt["mismatches"].push_back({{"op", m.op + 1}, {"where", m.where}, {"text", m.text},
                                    {"observed", m.observed}, {"expected", m.expected},
                                    {"rule", m.rule}});
      jb["traces"].push_back(jt);
    }
    for (int i = 0; i < kRuleCount; ++i) {
      const auto& rd = rule_descs()[i];
      jb["rules"].push_back({{"id", rd.id}, {"source", rd.source}, {"checked", b.rules[i].checked},
                             {"failed", b.rules[i].failed}});
    }
    j["backends"].push_back(jb);
  }
  return j.dump(2) + "\n";
}

std::string junit_report(const ConformResult& r) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mwcheck conform\">\n";
  for (const auto& b : r.backends) {
    size_t failures = 0;
    for (const auto& t : b.traces) failures += !t.passed();
    x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\">\n", xml_escape(b.name),
                     b.traces.size(), failures);
    for (const auto& t : b.traces) {
      x += fmt::format("    <testcase classname=\"conformance.{}\" name=\"{}\"", xml_escape(b.name),
                       xml_escape(t.trace));
      if (t.passed()) {
        x += "/>\n";
        continue;
      }
      x += fmt::format(">\n      <failure message=\"{} mismatch(es)\">", t.mismatches.size());
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
