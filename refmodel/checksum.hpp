// XXH64 (seed 0), the checksum of a .mwb file's bytes: fed in pieces of any
// size, it gives what the one-shot XXH64 of all of them gives, so streaming
// writers and readers need not hold the file. The hashing is xxHash's own
// (Debian's libxxhash-dev, its header inlined into checksum.cpp: nothing to
// link, no runtime dependency); the state is held by value here without
// its header, which would bring every xxHash name to every includer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

namespace mwc {

class Checksum {
 public:
  Checksum();
  // Adds bytes.
  void update(std::span<const uint8_t> bytes);
  // Returns the XXH64 of every byte added so far.
  uint64_t digest() const;

 private:
  // An XXH64_state_t (checksum.cpp checks the size and alignment; the only
  // member, at the class's alignment).
  static constexpr size_t kStateSize = 88;
  alignas(8) unsigned char state_[kStateSize];
};

// Returns the XXH64 of bytes.
uint64_t checksum(std::span<const uint8_t> bytes);

}  // namespace mwc
