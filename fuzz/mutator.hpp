// The structure-aware mutator: edits a trace's ops (insert, delete,
// duplicate, swap, tweak a field) and crosses two traces over, drawing every
// op and value from the op table, so mutants stay valid traces whose handles
// name objects of the trace's caps. Deterministic: the same Rng state makes
// the same edits.
#pragma once
#include <cstdint>

#include "refmodel/trace.hpp"

namespace mwc::fuzz {

// splitmix64: small, fast, and the same on every platform (unlike the
// standard distributions).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  // Returns the next 64 random bits.
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Returns a number in [0, n); 0 when n is 0.
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
  // Returns true with probability num/den.
  bool chance(uint64_t num, uint64_t den) { return below(den) < num; }

 private:
  uint64_t s_;
};

// Returns a value for one field of an op, biased towards the values that
// decide rules (edges of buffers and windows, flag sets, current rkeys).
Arg random_field(const FieldDesc& f, const Caps& caps, Rng& rng);
// Returns an op of a random code with random fields.
Op random_op(const Caps& caps, Rng& rng);

// Applies one to four structure-aware edits to t's ops, keeping at most
// max_ops ops.
void mutate(Trace& t, Rng& rng, size_t max_ops);
// Returns a trace made of a prefix of a and a run of b's ops (caps: the
// larger of each), at most max_ops long.
Trace crossover(const Trace& a, const Trace& b, Rng& rng, size_t max_ops);

}  // namespace mwc::fuzz
