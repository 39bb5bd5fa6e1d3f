// Judging one device's run of a corpus: the yardstick fitted to it, each
// trace's symptom, the findings, and the descriptive part (which profile
// it resembles most, the rule table).
#pragma once
#include <array>
#include <vector>

#include "findings/device_run.hpp"
#include "findings/finding.hpp"
#include "findings/yardstick.hpp"

namespace mwc::findings {

struct RuleRow {
  size_t checked = 0, failed = 0;  // ops this rule decided, and findings it names
  uint8_t agree = 0;  // bit per ProfileId: no trace diverges at an op of this rule under it
};

struct DeviceJudgment {
  Yardstick yardstick;                 // the normative profile it is judged by, fitted
  std::vector<Symptom> symptoms;       // per corpus trace
  std::vector<Finding> findings;       // this device's, most severe first
  ProfileId closest{};                 // descriptive: the profile matching most traces
  std::array<size_t, kProfileCount> matched{};  // traces each profile matches as it stands
  std::vector<RuleRow> rules;          // indexed by Rule, against the yardstick
};

// Judges a device's column against each of `yardsticks` (normative
// profiles) fitted to it, and keeps the one it conforms to on the most
// traces. Returns the judgment.
DeviceJudgment judge_device(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus,
                            const std::vector<ProfileId>& yardsticks);

}  // namespace mwc::findings
