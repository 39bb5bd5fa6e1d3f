#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "adapters/backend.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/load.hpp"
#include "cli/report.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {

std::string cell(const RuleCount& c) {
  if (c.checked == 0) return "-";
  if (c.failed == 0) return fmt::format("ok {}", c.checked);
  return fmt::format("FAIL {}/{}", c.failed, c.checked);
}

}  // namespace

int cmd_conform(const ConformOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.devices.empty()) return cmd_conform_devices(o, out, err);
  ConformResult result;
  result.made.command = o.command;
  if (!o.report.empty()) {
    std::string why;
    const auto when = report_time(why);
    if (!when) return err << "mwcheck conform: error: " << why << "\n", kExitBadInput;
    result.made.created = *when;
  }
  std::vector<std::string> specs = o.profiles;
  if (specs.empty())
    for (const auto& p : profile_descs()) specs.emplace_back(p.name);
  std::vector<std::unique_ptr<Backend>> backends;
  for (const auto& s : specs) {
    std::string why;
    auto b = make_backend(s, why);
    if (!b) {
      err << "mwcheck conform: error: " << why << "\n";
      return kExitBadInput;
    }
    backends.push_back(std::move(b));
  }

  std::vector<std::string> paths;
  std::vector<Trace> loaded;
  int status = load_corpus(o.corpus, paths, loaded, err);
  if (paths.empty()) return kExitBadInput;
  std::vector<std::pair<std::string, Trace>> traces;
  for (size_t i = 0; i < paths.size(); ++i) traces.emplace_back(paths[i], std::move(loaded[i]));
  result.corpus = o.corpus;
  std::vector<Outcome> outcomes;
  for (auto& b : backends) {
    BackendRun br;
    br.name = b->name();
    for (const auto& [path, t] : traces) {
      const auto start = std::chrono::steady_clock::now();
      b->run(t, outcomes);
      TraceRun tr;
      tr.trace = fs::path(path).filename().string();
      std::vector<uint32_t> checked;
      tr.mismatches = check_expectations(path, t, outcomes, b->expectation_column(), &checked);
      tr.checked = checked.size();
      for (const uint32_t i : checked) ++br.rules[static_cast<int>(outcomes[i].rule)].checked;
      for (const auto& m : tr.mismatches) ++br.rules[static_cast<int>(outcomes[m.op].rule)].failed;
      tr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      br.traces.push_back(std::move(tr));
    }
    result.backends.push_back(std::move(br));
  }

  // The rule x backend table.
  size_t rw = 4;
  for (const auto& rd : rule_descs()) rw = std::max(rw, rd.id.size());
  std::string header = fmt::format("{:<{}}", "rule", rw);
  for (const auto& b : result.backends) header += fmt::format("  {:<13}", b.name.substr(b.name.find(':') + 1));
  out << header << "  source\n" << std::string(header.size() + 8, '-') << "\n";
  std::vector<std::string_view> unexercised;
  for (int r = 0; r < kRuleCount; ++r) {
    if (by_device(static_cast<Rule>(r))) continue;  // a device's outcome: no model rule
    bool any = false;
    for (const auto& b : result.backends) any = any || b.rules[r].checked;
    if (!any) {
      unexercised.push_back(rule_descs()[r].id);
      continue;
    }
    std::string row = fmt::format("{:<{}}", rule_descs()[r].id, rw);
    for (const auto& b : result.backends) row += fmt::format("  {:<13}", cell(b.rules[r]));
    out << row << "  " << rule_descs()[r].source << "\n";
  }
  if (!unexercised.empty()) {
    out << "\nrules no expectation exercises:";
    for (const auto& id : unexercised) out << " " << id;
    out << "\n";
  }

  size_t passed = 0, failed = 0;
  for (const auto& b : result.backends) {
    for (const auto& t : b.traces) {
      t.passed() ? ++passed : ++failed;
      for (const auto& m : t.mismatches)
        out << fmt::format("{}: mismatch under {}: {} => {}, expected {} (rule {})\n", m.where, b.name,
                           m.text, m.observed, m.expected, m.rule);
    }
  }
  out << fmt::format("\nconform: {} traces x {} profiles: {} passed, {} failed\n", traces.size(),
                     result.backends.size(), passed, failed);

  if (!o.report.empty() &&
      !write_reports(o.report, {{"report.json", json_report(result)}, {"junit.xml", junit_report(result)}}, out,
                     err))
    return kExitBadInput;
  if (status == kExitOk && failed) status = kExitFail;
  return status;
}

}  // namespace mwc::cli
