#include "refmodel/checksum.hpp"

#include <new>

// xxHash as a header: its functions inlined here, static, so that no other
// file sees them and nothing is linked.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mwc {
namespace {

// Returns the xxHash state in s (its bytes: XXH64_state_t is plain data).
XXH64_state_t* state(unsigned char* s) { return std::launder(reinterpret_cast<XXH64_state_t*>(s)); }
const XXH64_state_t* state(const unsigned char* s) {
  return std::launder(reinterpret_cast<const XXH64_state_t*>(s));
}

}  // namespace

Checksum::Checksum() {
  static_assert(sizeof(XXH64_state_t) <= kStateSize && alignof(XXH64_state_t) <= alignof(Checksum),
                "Checksum::state_ holds an XXH64_state_t");
  ::new (static_cast<void*>(state_)) XXH64_state_t;
  XXH64_reset(state(state_), 0);
}

void Checksum::update(std::span<const uint8_t> bytes) {
  // An empty span may have no data pointer, which XXH64_update takes as an error.
  if (!bytes.empty()) XXH64_update(state(state_), bytes.data(), bytes.size());
}

uint64_t Checksum::digest() const { return XXH64_digest(state(state_)); }

uint64_t checksum(std::span<const uint8_t> bytes) {
  return bytes.empty() ? XXH64(nullptr, 0, 0) : XXH64(bytes.data(), bytes.size(), 0);
}

}  // namespace mwc
