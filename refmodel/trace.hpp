// A trace: the unit every part of mwcheck exchanges.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "refmodel/field.hpp"
#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/profile.hpp"

namespace mwc {

// How many objects of each kind (HandleKind order) the trace may name.
using Caps = std::array<uint32_t, kHandleKinds>;

// An expected outcome of op `op`, for the profiles in `profiles` (bit per
// ProfileId), or for every profile without a clause of its own (`fallback`).
struct Expectation {
  uint32_t op = 0;
  bool fallback = true;
  uint8_t profiles = 0;
  Pattern pattern;
  friend bool operator==(const Expectation&, const Expectation&) = default;
};

// A comment of the text form: a line of its own before op `op` (op equal to
// the number of ops: after the last op), or at the end of op `op`'s line.
struct Comment {
  uint32_t op = 0;
  bool end_of_line = false;
  std::string text;  // without the leading '#'
  friend bool operator==(const Comment&, const Comment&) = default;
};

struct Trace {
  Caps caps{1, 1, 1, 1, 1};
  std::vector<Op> ops;
  std::vector<Expectation> expects;  // sorted by op
  std::vector<Comment> comments;     // sorted by op
  std::vector<uint32_t> lines;       // source line of each op (text form only)
  std::string origin;  // the file it was read from, for reports; not part of its meaning
  friend bool operator==(const Trace& a, const Trace& b) {
    return a.caps == b.caps && a.ops == b.ops && a.expects == b.expects &&
           a.comments == b.comments;
  }
};

// Returns the pattern trace `t` expects of op `i` under a profile column
// (nullptr when none applies). `col` < 0 (a profile adjusted by knobs, or
// none) takes the fallback clause.
inline const Pattern* expected(const Trace& t, uint32_t i, int col) {
  const Pattern* fallback = nullptr;
  for (const auto& e : t.expects) {
    if (e.op != i) continue;
    if (!e.fallback && col >= 0 && (e.profiles >> col) & 1) return &e.pattern;
    if (e.fallback) fallback = &e.pattern;
  }
  return fallback;
}

}  // namespace mwc
