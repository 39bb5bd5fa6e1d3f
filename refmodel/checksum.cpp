#include "refmodel/checksum.hpp"

#include <cstring>

namespace mwc {
namespace {

constexpr uint64_t P1 = 0x9e3779b185ebca87ull, P2 = 0xc2b2ae3d27d4eb4full,
                   P3 = 0x165667b19e3779f9ull, P4 = 0x85ebca77c2b2ae63ull,
                   P5 = 0x27d4eb2f165667c5ull;

constexpr uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
uint64_t rd64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // little-endian hosts only, as the codec
  return v;
}
uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
constexpr uint64_t round(uint64_t acc, uint64_t in) { return rotl(acc + in * P2, 31) * P1; }
constexpr uint64_t merge(uint64_t h, uint64_t lane) { return (h ^ round(0, lane)) * P1 + P4; }

}  // namespace

void Checksum::update(std::span<const uint8_t> b) {
  const uint8_t* p = b.data();
  size_t n = b.size();
  total_ += n;
  if (held_) {  // complete the held block first
    const size_t take = n < 32 - held_ ? n : 32 - held_;
    std::memcpy(tail_ + held_, p, take);
    held_ += static_cast<uint32_t>(take);
    p += take, n -= take;
    if (held_ < 32) return;
    for (int i = 0; i < 4; ++i) lane_[i] = round(lane_[i], rd64(tail_ + 8 * i));
    held_ = 0;
  }
  uint64_t a = lane_[0], c = lane_[1], d = lane_[2], e = lane_[3];
  for (; n >= 32; p += 32, n -= 32) {
    a = round(a, rd64(p));
    c = round(c, rd64(p + 8));
    d = round(d, rd64(p + 16));
    e = round(e, rd64(p + 24));
  }
  lane_[0] = a, lane_[1] = c, lane_[2] = d, lane_[3] = e;
  std::memcpy(tail_, p, n);
  held_ = static_cast<uint32_t>(n);
}

uint64_t Checksum::digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = rotl(lane_[0], 1) + rotl(lane_[1], 7) + rotl(lane_[2], 12) + rotl(lane_[3], 18);
    for (const uint64_t l : lane_) h = merge(h, l);
  } else {
    h = P5;  // + the seed, 0
  }
  h += total_;
  const uint8_t* p = tail_;
  uint32_t n = held_;
  for (; n >= 8; p += 8, n -= 8) h = rotl(h ^ round(0, rd64(p)), 27) * P1 + P4;
  if (n >= 4) h = rotl(h ^ (rd32(p) * P1), 23) * P2 + P3, p += 4, n -= 4;
  for (; n > 0; ++p, --n) h = rotl(h ^ (*p * P5), 11) * P1;
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

uint64_t checksum(std::span<const uint8_t> bytes) {
  Checksum c;
  c.update(bytes);
  return c.digest();
}

}  // namespace mwc
