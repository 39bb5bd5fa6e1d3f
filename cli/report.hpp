// Conformance results and their reports (JSON, JUnit XML).
#pragma once
#include <array>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "compare/expectations.hpp"
#include "refmodel/rules.hpp"

namespace mwc::cli {

// One trace under one backend.
struct TraceRun {
  std::string trace;  // file name
  size_t checked = 0;
  std::vector<Mismatch> mismatches;
  bool passed() const { return mismatches.empty(); }
};
struct RuleCount {
  size_t checked = 0, failed = 0;
};
// One backend's whole run of the corpus.
struct BackendRun {
  std::string name;
  std::vector<TraceRun> traces;
  std::array<RuleCount, kRuleCount> rules{};
};
struct ConformResult {
  std::string corpus;
  std::vector<BackendRun> backends;
};

// Returns `s` with the characters XML and HTML give meaning escaped.
std::string xml_escape(std::string_view s);

// Each returns one report file's contents: report.json, junit.xml.
std::string json_report(const ConformResult& r);
std::string junit_report(const ConformResult& r);

// Writes a set of reports (file name, contents) into the folder `dir`
// (made when its parent exists) as one: every file or none replaced.
// Returns true after printing "reports: PATH..." to `out`, or false after
// printing the error to `err`.
bool write_reports(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files,
                   std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
