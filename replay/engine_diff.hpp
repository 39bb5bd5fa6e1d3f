// The replay engine against `mwcheck run`: the differential check the
// engine's tests and the fuzz_replay target share. The engine runs a
// trace's .mwb records; `run` steps Model over the decoded trace and checks
// its expectations (compare/expectations.hpp). Both must give every op the
// same outcome and the trace the same verdicts.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refmodel/trace.hpp"
#include "replay/engine.hpp"

namespace mwc::replay {

// Returns the record bytes of a .mwb image: no header, string table or trailer.
std::span<const uint8_t> records_of(const std::vector<uint8_t>& mwb);

// Returns what `mwcheck run --check` decides of trace t whose ops had the
// outcomes `outs` under profile column `column` (-1: fallback clauses only).
Verdicts run_verdicts(const Trace& t, std::span<const Outcome> outs, int column);

// Returns t with each op expecting the outcome the model gives it under
// each profile column: a fallback from verbs and a clause for every column
// that differs (what `gen --expect all` writes). The clauses of op i are
// exact, or, when bit i % 64 of `loose` is set, leave the completion's
// opcode and the key out (patterns as people write them).
Trace with_model_expectations(Trace t, uint64_t loose = 0);

// Returns the verdicts of an engine fed the records of .mwb image `mwb` in
// pieces of `step` bytes, as a reader at chunk boundaries would. With
// `outs`, the engine appends each op's outcome there, which keeps it off
// the record loop's own lane: run both ways to cover both. The record loop
// checks runs eight records at a time after `batch_after` of them
// (Engine::batch_records), loading their words as `loads` says, on `isa`.
Verdicts replay_bytes(const std::vector<uint8_t>& mwb, const Caps& caps, const Profile& p, int column,
                      size_t step, std::vector<Outcome>* outs = nullptr,
                      size_t batch_after = Engine::kBatchAfter, BatchLoads loads = faster_batch_loads(),
                      BatchIsa isa = best_batch_isa());

// Returns the first difference between two replays' verdicts, or "".
std::string verdicts_diff(const Verdicts& got, const Verdicts& want);

// Returns the outcome Model::step gives each op of t under profile p.
std::vector<Outcome> model_outcomes(const Trace& t, const Profile& p);

// Replays t in .mwb `version` under profile p (column `column`) fed in
// pieces of `step` bytes, once recording outcomes and three times on the
// record loop's lane (as replays run, and every run eight records at a
// time, each way of loading on each instruction set the processor has);
// returns the first
// way the engine parts from Model::step's outcomes (meaning and rule) and
// run's verdicts, or "" when it agrees.
std::string engine_divergence(const Trace& t, const Profile& p, int column, uint16_t version, size_t step);

// The same, for a caller that runs one trace under many profiles and
// versions and so computes each part once: `mwb` is t encoded, `want` its
// ops' outcomes under p (model_outcomes) and `run` the verdicts of `mwcheck
// run` on them (run_verdicts).
std::string engine_divergence(const Trace& t, const std::vector<uint8_t>& mwb, const Profile& p,
                              int column, size_t step, std::span<const Outcome> want, const Verdicts& run);

}  // namespace mwc::replay
