#include "refmodel/binary_codec.hpp"

#include <random>

#include <gtest/gtest.h>

#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

Trace decoded(const std::vector<uint8_t>& bytes) {
  auto r = decode_mwb(bytes);
  EXPECT_TRUE(std::holds_alternative<Trace>(r));
  return std::holds_alternative<Trace>(r) ? std::get<Trace>(r) : Trace{};
}

TEST(BinaryCodec, CorpusRoundTripsTextBinaryText) {
  const auto files = testing::corpus_files();
  for (const auto& f : files) {
    const std::string text = print_text(testing::parse_or_fail(testing::read_file(f)));
    const Trace t = testing::parse_or_fail(text);
    const auto bytes = encode_mwb(t);
    EXPECT_EQ(print_text(decoded(bytes)), text) << f;
    EXPECT_EQ(encode_mwb(decoded(bytes)), bytes) << f;
  }
}

TEST(BinaryCodec, EveryByteStringDecodesToAValidTrace) {
  std::mt19937_64 rng(42);
  const Caps caps{3, 3, 5, 5, 3};
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes(rng() % 400);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    const Trace t = decode_records(bytes, caps, bytes);
    // Valid: it prints to text that parses back to the same trace, and it
    // encodes to bytes that decode to the same trace.
    const Trace again = testing::parse_or_fail(print_text(t));
    for (int k = 0; k < kHandleKinds; ++k) EXPECT_LE(again.caps[k], t.caps[k]);
    EXPECT_EQ(again.ops, t.ops);
    EXPECT_EQ(again.expects, t.expects);
    EXPECT_EQ(decoded(encode_mwb(t)), t);
  }
}

TEST(BinaryCodec, HeaderErrorsSayWhere) {
  EXPECT_TRUE(std::holds_alternative<DecodeError>(decode_mwb(std::vector<uint8_t>{'M', 'W'})));
  std::vector<uint8_t> bytes = encode_mwb(Trace{});
  bytes[0] = 'X';
  EXPECT_EQ(std::get<DecodeError>(decode_mwb(bytes)).offset, 0u);
  bytes[0] = 'M';
  bytes[4] = 9;
  EXPECT_EQ(std::get<DecodeError>(decode_mwb(bytes)).offset, 4u);
}

TEST(BinaryCodec, TruncatedRecordsAreDropped) {
  const Trace t = testing::parse_or_fail("alloc_pd p0\nalloc_pd p1 => OK\n");
  auto bytes = encode_mwb(t);
  for (size_t cut = kMwbHeaderSize; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> part(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    part[28] = part[29] = part[30] = part[31] = 0;  // no string table
    const Trace u = decoded(part);
    EXPECT_LE(u.ops.size(), 2u);
  }
}

}  // namespace
}  // namespace mwc
