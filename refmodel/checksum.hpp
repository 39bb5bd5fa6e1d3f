// XXH64 (seed 0), the checksum of a .mwb file's bytes: fed in pieces of any
// size, it gives what the one-shot XXH64 of all of them gives, so streaming
// writers and readers need not hold the file. Eight bytes a step in four
// independent lanes: a small cost next to decoding the records.
#pragma once
#include <cstdint>
#include <span>

namespace mwc {

class Checksum {
 public:
  // Adds bytes.
  void update(std::span<const uint8_t> bytes);
  // Returns the XXH64 of every byte added so far.
  uint64_t digest() const;

 private:
  uint64_t lane_[4] = {0x60ea27eeadc0b5d6ull, 0xc2b2ae3d27d4eb4full, 0, 0x61c8864e7a143579ull};
  uint8_t tail_[32] = {};  // bytes of a 32-byte block not yet taken
  uint32_t held_ = 0;
  uint64_t total_ = 0;
};

// Returns the XXH64 of bytes.
uint64_t checksum(std::span<const uint8_t> bytes);

}  // namespace mwc
