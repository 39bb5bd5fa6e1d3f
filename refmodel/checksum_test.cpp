#include "refmodel/checksum.hpp"

#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace mwc {
namespace {

uint64_t of(std::string_view s) {
  return checksum({reinterpret_cast<const uint8_t*>(s.data()), s.size()});
}

// XXH64's published values, so other tools can check a .mwb file.
TEST(Checksum, IsXxh64) {
  EXPECT_EQ(of(""), 0xef46db3751d8e999ull);
  EXPECT_EQ(of("abc"), 0x44bc2cf5ad770999ull);
  EXPECT_EQ(of("Nobody inspects the spammish repetition"), 0xfbcea83c8a378bf1ull);
}

TEST(Checksum, PiecesOfAnySizeGiveTheWhole) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bytes(1000);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  for (size_t n = 0; n <= bytes.size(); n += 37) {
    const std::span<const uint8_t> all(bytes.data(), n);
    Checksum c;
    for (size_t at = 0; at < n;) {
      const size_t piece = std::min<size_t>(rng() % 70, n - at);
      c.update(all.subspan(at, piece));
      at += piece;
    }
    EXPECT_EQ(c.digest(), checksum(all)) << n;
  }
  std::vector<uint8_t> other = bytes;
  other[500] ^= 1;
  EXPECT_NE(checksum(other), checksum(bytes));
}

}  // namespace
}  // namespace mwc
