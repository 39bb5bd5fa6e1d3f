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
  // Bit per DeviceJudgment::matched (the profiles, then the drivers' later
  // releases): no trace diverges at an op of this rule under it.
  uint32_t agree = 0;
};
static_assert(kProfileCount + kRevisionCount <= 32, "RuleRow::agree has a bit for each profile and release");

// How many traces a profile, as it stands, matches to their end, and how
// many ops of all traces it matches before its first divergence in each.
struct ProfileMatch {
  std::string profile;  // "rxe", "rxe@6.12"
  size_t traces = 0, ops = 0;
};

struct DeviceJudgment {
  Yardstick yardstick;                 // the normative profile it is judged by, fitted
  std::vector<Symptom> symptoms;       // per corpus trace
  std::vector<Finding> findings;       // this device's, most severe first
  // Descriptive: each stock profile (ProfileId order), then each driver
  // release the revisions name (release_profiles()); and the one matching
  // most traces, of those the one matching most ops (a deviation no
  // profile takes can end every profile's match of a trace, after the op
  // where two releases differ), and of those the first.
  std::vector<ProfileMatch> matched;
  size_t closest = 0;                  // index into matched
  std::vector<RuleRow> rules;          // indexed by Rule, against the yardstick
};

// Judges a device's column against each of `yardsticks` (normative
// profiles) fitted to it, and keeps the one it conforms to on the most
// traces. Returns the judgment.
DeviceJudgment judge_device(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus,
                            const std::vector<ProfileId>& yardsticks);

// Returns the indices into j.matched of the profiles the device resembles
// most: the closest first, then each that matches as many traces and ops
// (no trace of the corpus tells them apart, so naming the first alone
// would pick silently).
std::vector<size_t> closest_profiles(const DeviceJudgment& j);

}  // namespace mwc::findings
