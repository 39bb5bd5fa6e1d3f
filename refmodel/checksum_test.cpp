#include "refmodel/checksum.hpp"

#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace mwc {
namespace {

std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// xxHash's own test buffer (xxhsum's sanity check): byte i is the top byte
// of 2654435761 times 11400714785074694797 to the i (mod 2^64).
std::vector<uint8_t> sanity_buffer(size_t n) {
  std::vector<uint8_t> b(n);
  uint64_t gen = 2654435761u;
  for (auto& x : b) x = static_cast<uint8_t>(gen >> 56), gen *= 11400714785074694797ull;
  return b;
}

// XXH64's published values, so other tools can check a version 3 .mwb file.
TEST(Checksum, Xxh64IsXxh64) {
  EXPECT_EQ(checksum(bytes_of(""), Hash::xxh64), 0xef46db3751d8e999ull);
  EXPECT_EQ(checksum(bytes_of("abc"), Hash::xxh64), 0x44bc2cf5ad770999ull);
  EXPECT_EQ(checksum(bytes_of("Nobody inspects the spammish repetition"), Hash::xxh64),
            0xfbcea83c8a378bf1ull);
}

// XXH3's published values (xxhsum's sanity check), through every kernel
// this processor runs: inputs past 240 bytes are read by the kernel, in
// one piece and byte by byte.
TEST(Checksum, Xxh3IsXxh3ThroughEveryKernel) {
  EXPECT_EQ(checksum(bytes_of(""), Hash::xxh3), 0x2d06800538d394c2ull);
  EXPECT_EQ(checksum(bytes_of("abc"), Hash::xxh3), 0x78af5f94892f3950ull);
  const auto buf = sanity_buffer(2367);
  const std::pair<size_t, uint64_t> published[] = {
      {1, 0xc44bdff4074eecdbull},   {195, 0xcd94217ee362ec3aull},  {403, 0xcdeb804d65c6dea4ull},
      {512, 0x617e49599013cb6bull}, {2048, 0xdd59e2c3a5f038e0ull}, {2240, 0x6e73a90539cf2948ull},
      {2367, 0xcb37aeb9e5d361edull}};
  const auto kernels = xxh3_kernels_here();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front(), Xxh3Kernel::sse2);
  for (const Xxh3Kernel k : kernels) {
    for (const auto& [n, want] : published) {
      Checksum whole(k), bytewise(k);
      whole.update({buf.data(), n});
      for (size_t i = 0; i < n; ++i) bytewise.update({buf.data() + i, 1});
      EXPECT_EQ(whole.digest(), want) << kernel_name(k) << " " << n;
      EXPECT_EQ(bytewise.digest(), want) << kernel_name(k) << " " << n;
    }
  }
}

TEST(Checksum, PiecesOfAnySizeGiveTheWhole) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bytes(5000);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  for (const Hash h : {Hash::xxh64, Hash::xxh3}) {
    for (size_t n = 0; n <= bytes.size(); n += 37) {
      const std::span<const uint8_t> all(bytes.data(), n);
      Checksum c(h);
      for (size_t at = 0; at < n;) {
        const size_t piece = std::min<size_t>(rng() % 700, n - at);
        c.update(all.subspan(at, piece));
        at += piece;
      }
      EXPECT_EQ(c.digest(), checksum(all, h)) << n;
    }
    std::vector<uint8_t> other = bytes;
    other[500] ^= 1;
    EXPECT_NE(checksum(other, h), checksum(bytes, h));
  }
  EXPECT_NE(checksum(bytes, Hash::xxh64), checksum(bytes, Hash::xxh3));
}

}  // namespace
}  // namespace mwc
