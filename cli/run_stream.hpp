// `run` of a text trace in pieces, so that memory stays at one piece
// however long the trace is (a recorded production trace of 10^8 ops):
// for a file, one pass for the objects the trace names (the model's tables
// are sized once), one that parses, runs, checks and prints piece by
// piece; for an input read once (standard input, a pipe), one pass whose
// pieces grow the tables. The output is byte for byte the whole-trace
// run's.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "adapters/backend.hpp"

namespace mwc::cli {

// Returns whether `path` is a text trace file run can stream (a regular
// file that is not .mwb and does not start with the binary magic; never
// standard input) on `b`.
bool can_stream(const std::string& path, const Backend& b);

// Runs the text trace at `path` on `b` in pieces, printing each annotated
// piece unless `quiet` and each mismatch when `check`. Returns false after
// printing FILE:LINE:COL: error: for bad input; adds the mismatches it saw
// to `mismatches`.
bool run_streamed(const std::string& path, Backend& b, bool check, bool quiet, size_t& mismatches,
                  std::ostream& out, std::ostream& err);

// Returns whether `path` can be read only once: standard input, a pipe, a
// FIFO, a device.
bool reads_once(const std::string& path);
// Runs the input at `path`, read once, on `b` as run_streamed() does, in
// one pass: each piece grows the state to the objects it names (a parse
// error in a later piece comes after the pieces before it were printed).
// A binary trace (by its magic, or .mwb) is read whole into `binary`
// instead, to be run whole. Returns false after printing FILE:LINE:COL:
// error: for bad input.
bool run_read_once(const std::string& path, Backend& b, bool check, bool quiet, size_t& mismatches,
                   std::optional<Trace>& binary, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
