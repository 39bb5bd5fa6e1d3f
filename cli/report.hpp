// Conformance results and their reports (JSON, JUnit XML).
#pragma once
#include <array>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/json_out.hpp"
#include "compare/expectations.hpp"
#include "refmodel/rules.hpp"

namespace mwc::cli {

// One trace under one backend.
struct TraceRun {
  std::string trace;  // file name
  size_t checked = 0;
  double seconds = 0;  // running it and checking its expectations
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
  Provenance made;
  std::string corpus;
  std::vector<BackendRun> backends;
};

// Returns `s` with the characters XML and HTML give meaning escaped.
std::string xml_escape(std::string_view s);

// Returns `s` as a JUnit classname component: letters, digits, '_' and
// '-' kept, anything else (spaces, dots, colons) made '_'.
std::string junit_name(std::string_view s);
// Returns a duration as a JUnit time attribute ("1.250"; "0" when
// reproducible(): same inputs, same bytes).
std::string junit_time(double seconds);

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
