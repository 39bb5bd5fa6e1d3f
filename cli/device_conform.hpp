// The conformance corpus on devices: run every trace on each device, hold
// the device's outcomes against the model under every profile, and say per
// rule, per knob and per trace what the device does, with a minimized
// reproducer for every divergence.
#pragma once
#include <array>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "adapters/backend.hpp"
#include "refmodel/profile.hpp"
#include "refmodel/trace.hpp"

namespace mwc::cli {

struct CorpusTrace {
  std::string name;  // file name
  Trace trace;
};

// One trace on one device.
struct DeviceTrace {
  std::string trace;
  std::vector<Outcome> outcomes;
  std::string note;        // a crash or hang, as the device backend saw it
  std::string reproducer;  // minimized .mwt of the divergence, when there is one
};

// One device's whole run, as the device side reports it.
struct DeviceColumn {
  std::string spec;   // device:rxe0, device:softroce:6.12
  std::string label;  // what it is: "rxe0", "softroce 6.12.57+deb12-amd64"
  std::vector<DeviceTrace> traces;  // in corpus order
  std::string timing;               // boot/run/total, for the VM
  std::string incident;             // the VM died after the traces (minimizing)
};

// Runs the corpus on a device of this machine, trace by trace (each in its
// own child process). When `stream` is set, each result is also printed as
// a JSON line (the Soft-RoCE guest speaks to the host that way);
// `progress` draws a bar on it when set. Returns the device's column.
DeviceColumn run_device_corpus(Backend& device, const std::vector<CorpusTrace>& corpus,
                               std::ostream* stream, std::ostream* progress);

// Shrinks each divergence of `col` from the model under `against` by delta
// debugging, re-running candidates on the device, `budget` device runs in
// all (a count, so reports repeat); a trace left over says so in its
// reproducer. `only`
// (when not empty) names the traces to shrink. Streams reproducers as JSON
// lines when `stream` is set.
void minimize_divergences(Backend& device, const std::vector<CorpusTrace>& corpus,
                          ProfileId against, size_t budget, DeviceColumn& col,
                          std::ostream* stream);

// Returns whether a trace's outcomes on a device diverge from `against` in
// a way a re-run can shrink (not a hang, not a dead guest).
bool shrinkable(const DeviceTrace& t, const CorpusTrace& c, ProfileId against);

// Reads the JSON lines of run_device_corpus back into `col` (the host's side
// of the Soft-RoCE VM); lines that are no JSON object (a line torn by a
// dying guest) are skipped. Returns false when no line could be read.
bool read_device_stream(const std::string& text, DeviceColumn& col);

// How a trace on a device compares with the model under one profile.
enum class TraceVerdict : uint8_t { match, diverge, unsupported, crash, timeout };
std::string_view verdict_name(TraceVerdict v);

struct Divergence1 {
  size_t op = 0;
  Outcome device, model;
};

struct TraceAnalysis {
  TraceVerdict verdict = TraceVerdict::match;
  std::optional<Divergence1> first;  // against the closest profile
};

struct RuleRow {
  size_t checked = 0, failed = 0;
  uint8_t agree = 0;  // bit per ProfileId: no op of this rule diverges under it
};

struct KnobPrint {
  size_t telling = 0;          // traces on which the knob's alternatives differ
  std::vector<size_t> matches;  // per alternative: telling traces it matches
  std::string verdict;          // "like ALT", "like A or B", "none", "not exercised"
};

struct DeviceAnalysis {
  ProfileId closest{};
  std::array<size_t, kProfileCount> matched{};  // traces matching each profile
  std::vector<TraceAnalysis> traces;
  std::vector<RuleRow> rules;  // indexed by Rule
  std::vector<KnobPrint> knobs;  // indexed by Knob
};

// Compares a device's outcomes with the model under every profile, and
// each knob's alternatives on the closest one. Returns the analysis.
DeviceAnalysis analyze(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus);

// Returns the profile whose model matches the most traces of `col`.
ProfileId closest_profile(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus);

}  // namespace mwc::cli
