// A run checked against what the trace expects of it (`=> OUTCOME`, per
// profile column): the one place expectations are checked outside the
// replay engine's hot loop, and the one Mismatch type.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refmodel/trace.hpp"

namespace mwc {

// An op whose outcome differs from what the trace expects of it.
struct Mismatch {
  uint64_t op = 0;     // 0-based index in the trace
  std::string where;   // FILE:LINE (or FILE:op N), when the trace has a file
  std::string text;    // the op, as trace text
  std::string observed, expected, rule;
};

// Returns where op `i` of the trace read from `path` is: "FILE:LINE", or
// "FILE:op N" for a trace without source lines.
std::string where(const std::string& path, const Trace& t, size_t i);

// Returns the mismatch of op `i`, whose outcome `o` fails pattern `p`.
Mismatch mismatch_at(const std::string& path, const Trace& t, size_t i, const Outcome& o, const Pattern& p);

// Returns the ops of `t` whose outcome in `outcomes` fails the trace's
// expectation for profile column `column` (-1: fallback expectations only),
// in op order. `checked`, when given, receives every op that had one.
std::vector<Mismatch> check_expectations(const std::string& path, const Trace& t, std::span<const Outcome> outcomes,
                                         int column, std::vector<uint32_t>* checked = nullptr);

// Returns the line `run --check`, `conform` and `replay` print for a
// mismatch seen under backend `who`.
std::string mismatch_line(const Mismatch& m, const std::string& who);

}  // namespace mwc
