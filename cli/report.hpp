// Conformance results and their reports (JSON, JUnit XML).
#pragma once
#include <array>
#include <ostream>
#include <string>
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

// Each writes one report; returns false if the file cannot be written.
bool write_json(const ConformResult& r, const std::string& path);
bool write_junit(const ConformResult& r, const std::string& path);

}  // namespace mwc::cli
