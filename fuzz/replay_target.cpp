// fuzz_replay: the replay engine (replay/engine.hpp) against `mwcheck run`,
// under every profile and every knob alternative. Each input gets the
// expectations the model gives it under every column (as `gen` writes
// them; a quarter of the ops' patterns loose), runs as it is and "shaped"
// (peer requests rebased onto their keys' objects, so compact records and
// the record loop's lane carry them), is encoded as .mwb, and is fed to
// the engine in pieces and whole, with and without outcomes recorded (and
// without, once with every run of compact records checked eight at a time
// where the processor can): any
// op whose outcome or rule differs from Model::step's, or any verdict that
// differs from run's, aborts.
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/check.hpp"
#include "fuzz/input.hpp"
#include "refmodel/binary_codec.hpp"
#include "replay/engine_diff.hpp"
#include "replay/fast_path_diff.hpp"

namespace {

void check_all(const mwc::Trace& t, size_t step) {
  static const std::vector<mwc::Profile> profiles = mwc::profile_variants();
  // The first version's records (full ones only) under the columns; the
  // version written today under all. Each encoded once for every profile.
  const uint16_t versions[] = {1, mwc::kMwbVersion};
  const std::vector<uint8_t> images[] = {mwc::encode_mwb(t, versions[0]), mwc::encode_mwb(t, versions[1])};
  for (size_t i = 0; i < profiles.size(); ++i) {
    const mwc::Profile& p = profiles[i];
    // A column's own clauses, or (knob-adjusted) the fallbacks only.
    const int column = i < static_cast<size_t>(mwc::kProfileCount) ? static_cast<int>(i) : -1;
    const size_t piece = i % 2 ? step : SIZE_MAX;  // alternately in pieces and whole
    const std::vector<mwc::Outcome> want = mwc::replay::model_outcomes(t, p);
    const mwc::replay::Verdicts run = mwc::replay::run_verdicts(t, want, column);
    for (size_t v = 0; v < std::size(versions); ++v) {
      if (versions[v] == 1 && column < 0) continue;
      const std::string d = mwc::replay::engine_divergence(t, images[v], p, column, piece, want, run);
      if (d.empty()) continue;
      const std::string fed = piece == SIZE_MAX ? "whole" : "in pieces of " + std::to_string(piece) + " bytes";
      std::fprintf(stderr, "profile %s, .mwb version %u, fed %s: %s\n", p.name.c_str(), versions[v],
                   fed.c_str(), d.c_str());
      mwc::fuzz::fail("the replay engine and run disagree", &t);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const mwc::Trace t = mwc::fuzz::input_trace({data, size});
  const size_t step = 1 + size % 53;  // cuts records at varied places
  // Which ops expect loose patterns: bits of a hash of the input (FNV-1a),
  // a quarter of them, so that most ops still fold into their records.
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211u;
  check_all(mwc::replay::with_model_expectations(t, h & h >> 1), step);
  check_all(mwc::replay::with_model_expectations(mwc::replay::fast_shaped(t), ~h & ~h >> 1), step);
  return 0;
}
