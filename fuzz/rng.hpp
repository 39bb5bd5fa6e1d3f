// The fuzzers' random numbers: splitmix64, small, fast, and the same on
// every platform (unlike the standard distributions), so a seed reproduces
// a campaign anywhere.
#pragma once
#include <cstdint>

namespace mwc::fuzz {

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

}  // namespace mwc::fuzz
