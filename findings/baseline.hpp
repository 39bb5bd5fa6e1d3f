// Findings across runs: the findings array of report.json (its versioned,
// documented shape), read back as a baseline, and a run compared with it:
// which findings are new, which are fixed, which are unchanged.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "findings/finding.hpp"

namespace mwc::findings {

// report.json's "findings_schema": bumped whenever a field changes meaning
// or goes away (fields may be added within a version).
inline constexpr int kFindingsSchema = 1;

// Returns a finding as an element of report.json's "findings" array.
nlohmann::ordered_json to_json(const Finding& f);

// A finding as a stored report has it: enough to compare runs and to
// export its reproducer again.
struct Stored {
  std::string id, severity, summary;
  std::vector<std::string> devices;
  std::string rule, source, yardstick, device_outcome;
  std::string reproducer;  // trace text; the finding shows at its last op
};

// Reads the findings of a report.json written by `mwcheck conform
// --device`. Returns them, or nothing with `err` set to "FILE:LINE:COL:
// error: ..." when the file is no such report.
std::optional<std::vector<Stored>> read_stored(const std::string& path, std::string& err);

struct BaselineDiff {
  std::vector<const Finding*> added;      // in this run, not in the baseline
  std::vector<Stored> fixed;              // in the baseline, not in this run
  std::vector<const Finding*> unchanged;  // in both
};

// Returns how the findings of this run compare with a baseline's (by id;
// unsupported features are compared like the rest).
BaselineDiff compare(const std::vector<Finding>& now, const std::vector<Stored>& before);

}  // namespace mwc::findings
