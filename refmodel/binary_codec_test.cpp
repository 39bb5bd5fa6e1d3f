#include "refmodel/binary_codec.hpp"

#include <algorithm>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "refmodel/checksum.hpp"
#include "refmodel/mwb_record.hpp"
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
    for (const uint16_t version : {uint16_t{1}, uint16_t{2}, uint16_t{3}}) {
      const auto bytes = encode_mwb(t, version);
      EXPECT_EQ(bytes[4], version) << f;
      EXPECT_EQ(print_text(decoded(bytes)), text) << f << " version " << version;
      EXPECT_EQ(encode_mwb(decoded(bytes), version), bytes) << f << " version " << version;
    }
  }
}

// Version 2: a hot op through a key at an offset into the key's object is
// one 12-byte record, its usual outcome folded in; other ops, other
// outcomes and other shapes keep full records; both decode the same.
TEST(BinaryCodec, HotOpsTakeCompactRecordsWithTheUsualOutcomeFolded) {
  const std::string head =
      "buf b0 len=4096\nalloc_pd p0\n"
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|MW_BIND\n"
      "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\n";
  const auto size_of = [&](const std::string& last) {
    const Trace t = testing::parse_or_fail(head + last + "\n");
    const Trace none = testing::parse_or_fail(head);
    const auto b = encode_mwb(t, 2);
    EXPECT_EQ(decoded(b), t) << last;
    EXPECT_EQ(decoded(encode_mwb(t, 1)), t) << last;
    return b.size() - encode_mwb(none, 2).size();
  };
  EXPECT_EQ(size_of("peer_write q0 rkey=w0 addr=w0+8 len=16 => IBV_WC_SUCCESS"), 12u);
  EXPECT_EQ(size_of("peer_read q0 rkey=m0 addr=m0+8 len=16 => IBV_WC_SUCCESS"), 12u);
  EXPECT_EQ(size_of("peer_read q0 rkey=w0.prev addr=w0+8 len=16"), 12u);
  // Another outcome: the compact record and an expectation record.
  EXPECT_EQ(size_of("peer_read q0 rkey=w0 addr=w0 len=16 => IBV_WC_REM_ACCESS_ERR"), 12u + 7u);
  EXPECT_EQ(size_of("peer_read q0 rkey=w0 addr=w0 len=16 => IBV_WC_SUCCESS; rxe: IBV_WC_REM_ACCESS_ERR"),
            12u + 7u);
  // Shapes a compact record cannot hold: full records, the usual outcome
  // or `OK` still folded into their code.
  EXPECT_EQ(size_of("peer_write q0 rkey=w0 addr=m0+8 len=16 => IBV_WC_SUCCESS"), 32u);
  EXPECT_EQ(size_of("peer_write q0 rkey=w0+1 addr=w0 len=16"), 32u);
  EXPECT_EQ(size_of("peer_write q0 rkey=w0 addr=w0 len=70000"), 32u);
  EXPECT_EQ(size_of("peer_fetch_add q0 rkey=w0 addr=w0 => IBV_WC_SUCCESS"), record_size(OpCode::peer_fetch_add));
  EXPECT_EQ(size_of("modify_qp q0 state=RTS => OK"), record_size(OpCode::modify_qp));
  EXPECT_EQ(size_of("modify_qp q0 state=RTS => EINVAL"), record_size(OpCode::modify_qp) + 7u);
  EXPECT_EQ(size_of("modify_qp q0 state=RTS => OK; rxe: EINVAL"), record_size(OpCode::modify_qp) + 7u);
  EXPECT_EQ(size_of("poll_cq q0 => IBV_WC_SUCCESS IBV_WC_BIND_MW"), record_size(OpCode::poll_cq) + 7u);
}

TEST(BinaryCodec, EveryByteStringDecodesToAValidTrace) {
  std::mt19937_64 rng(42);
  const Caps caps{3, 3, 5, 5, 3};
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> bytes(rng() % 400);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    const uint16_t version = round % 2 ? 2 : 1;
    const Trace t = decode_records(bytes, caps, bytes, version);
    // Valid: it prints to text that parses back to the same trace, and it
    // encodes to bytes that decode to the same trace.
    const Trace again = testing::parse_or_fail(print_text(t));
    for (int k = 0; k < kHandleKinds; ++k) EXPECT_LE(again.caps[k], t.caps[k]);
    EXPECT_EQ(again.ops, t.ops);
    EXPECT_EQ(again.expects, t.expects);
    EXPECT_EQ(decoded(encode_mwb(t)), t);
    EXPECT_EQ(decoded(encode_mwb(t, 1)), t);
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

// Versions 1 and 2 cannot tell a file cut short: its last whole record
// ends the trace.
TEST(BinaryCodec, TruncatedRecordsAreDroppedInVersions1And2) {
  const Trace t = testing::parse_or_fail("alloc_pd p0\nalloc_pd p1 => OK\n");
  for (const uint16_t version : {uint16_t{1}, uint16_t{2}}) {
    auto bytes = encode_mwb(t, version);
    for (size_t cut = kMwbHeaderSize; cut < bytes.size(); ++cut) {
      std::vector<uint8_t> part(bytes.begin(), bytes.begin() + static_cast<long>(cut));
      part[28] = part[29] = part[30] = part[31] = 0;  // no string table
      const Trace u = decoded(part);
      EXPECT_LE(u.ops.size(), 2u);
    }
  }
}

// Versions 3 and 4 end with a trailer: a file cut anywhere is an error at
// its end, and one whose bytes or op count differ from the trailer's is
// too, each version's bytes checked by its own hash.
TEST(BinaryCodec, VersionsWithATrailerRefuseFilesCutShortOrChanged) {
  const Trace t = testing::parse_or_fail("alloc_pd p0   # a comment\nalloc_pd p1 => OK\n");
  for (const uint16_t version : {uint16_t{3}, uint16_t{4}}) {
    SCOPED_TRACE(version);
    const auto bytes = encode_mwb(t, version);
    EXPECT_EQ(decoded(bytes), t);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      const std::vector<uint8_t> part(bytes.begin(), bytes.begin() + static_cast<long>(cut));
      auto r = decode_mwb(part);
      ASSERT_TRUE(std::holds_alternative<DecodeError>(r)) << "cut at " << cut;
      const DecodeError& e = std::get<DecodeError>(r);
      if (cut < kMwbHeaderSize) continue;  // the header's own errors
      EXPECT_EQ(e.offset, cut) << e.message;
      EXPECT_NE(e.message.find("truncated at byte " + std::to_string(cut)), std::string::npos)
          << e.message;
    }
    for (size_t at = kMwbHeaderSize; at < bytes.size() - kMwbTrailerSize; ++at) {
      auto changed = bytes;
      changed[at] ^= 0x10;
      auto r = decode_mwb(changed);
      ASSERT_TRUE(std::holds_alternative<DecodeError>(r)) << "byte " << at;
      const auto& e = std::get<DecodeError>(r);
      EXPECT_NE(e.message.find("checksum mismatch"), std::string::npos) << at << ": " << e.message;
    }
    // A trailer that counts other ops (and checksums what it follows).
    std::vector<uint8_t> body(bytes.begin(), bytes.end() - kMwbTrailerSize);
    encode_trailer({3, checksum(body, trailer_hash(version))}, body);
    auto r = decode_mwb(body);
    ASSERT_TRUE(std::holds_alternative<DecodeError>(r));
    EXPECT_EQ(std::get<DecodeError>(r).message, "the trailer counts 3 ops, the records hold 2");
    EXPECT_EQ(std::get<DecodeError>(r).offset, body.size() - kMwbTrailerSize + 8);
  }
  // Version 3's trailer holds the XXH64 of the bytes before it, 4's their
  // XXH3: a file that says 3 with 4's trailer is refused.
  for (const auto& [version, hash] :
       {std::pair{uint16_t{3}, Hash::xxh64}, std::pair{uint16_t{4}, Hash::xxh3}}) {
    const auto bytes = encode_mwb(t, version);
    const std::span<const uint8_t> body(bytes.data(), bytes.size() - kMwbTrailerSize);
    const auto tr = decode_trailer(std::span(bytes).last<kMwbTrailerSize>(), bytes.size());
    ASSERT_TRUE(std::holds_alternative<MwbTrailer>(tr));
    EXPECT_EQ(std::get<MwbTrailer>(tr).checksum, checksum(body, hash)) << version;
  }
  auto v4 = encode_mwb(t, 4);
  v4[4] = 3;
  std::vector<uint8_t> body(v4.begin(), v4.end() - kMwbTrailerSize);
  encode_trailer({2, checksum(body, Hash::xxh3)}, body);
  auto r = decode_mwb(body);
  ASSERT_TRUE(std::holds_alternative<DecodeError>(r));
  EXPECT_NE(std::get<DecodeError>(r).message.find("checksum mismatch"), std::string::npos);
}

}  // namespace
}  // namespace mwc

namespace mwc {
namespace {

// The typed view of a compact record (the replay's slow path) is the op
// the uniform decoding gives it, for every compact code and key kind.
TEST(MwbRecord, CompactViewIsTheCompactRecordsOp) {
  const Caps caps{4, 2, 8, 16, 4};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 4000; ++i) {
    uint8_t body[mwb::kCompactSize - 1];
    for (uint8_t& b : body) b = static_cast<uint8_t>(rng());
    const auto code = static_cast<uint8_t>(mwb::kCompactBase + i % (2 * mwb::kCompactOpCount));
    const mwb::Compact c = mwb::decode_compact(code, body, caps);
    Op want;
    mwb::compact_op(c, default_op(c.op), want);
    const Op got = c.op == OpCode::peer_write ? mwb::compact_view<args::peer_write>(c).to_op()
                                              : mwb::compact_view<args::peer_read>(c).to_op();
    ASSERT_EQ(got, want) << "code " << int{code} << " record " << i;
  }
}

// The replay accepts an op's outcome at once when its meaning word equals
// the expectation's (mwb::meaning_of_pattern), and otherwise checks the
// pattern itself. Over every ret, wc and wc_op byte and keys at and past
// the edges: an outcome so accepted matches the pattern the word decodes
// to, the word of an exact pattern is its outcome's, and the pattern word
// given back decodes as the one taken. (Bytes: every value a code has, one
// past, and high ones, kAny among them.)
TEST(MwbRecord, MeaningWordsAcceptOnlyOutcomesThePatternMatches) {
  constexpr int nres = kResultCount, nwc = kWcStatusCount, nop = kWcOpcodeCount;
  std::vector<uint64_t> bytes;
  for (uint64_t v = 0; v <= static_cast<uint64_t>(std::max({nres, nwc, nop})) + 1; ++v) bytes.push_back(v);
  for (const uint64_t v : {0x7f, 0x80, 0xfe, 0xff}) bytes.push_back(v);
  int accepted = 0;
  for (const uint64_t key : {uint64_t{0}, uint64_t{1}, uint64_t{255}, uint64_t{256}, uint64_t{0x7fff},
                             uint64_t{0x8000}, uint64_t{0xfffe}, uint64_t{0xffff}})
    for (const uint64_t ret : bytes)
      for (const uint64_t wc : bytes)
        for (const uint64_t op : bytes) {
          const uint64_t w = ret | wc << 8 | op << 16 | key << 24;
          uint8_t b[8], back[8];
          std::memcpy(b, &w, 8);
          const uint64_t m = mwb::meaning_of_pattern(w), w2 = mwb::pattern_of_meaning(m);
          std::memcpy(back, &w2, 8);
          const Pattern p = mwb::decode_pattern(b);
          ASSERT_EQ(mwb::decode_pattern(back), p) << std::hex << w;
          // The one outcome with meaning word m, where there is one.
          const uint64_t owc = (m >> 8) & 0xff, oop = (m >> 16) & 0xff;
          const auto okey = static_cast<int16_t>((m >> 32) & 0xffff);
          if (ret >= nres || owc >= nwc || oop >= nop || okey < -1 || okey > 255) continue;
          const Outcome o = make_outcome(static_cast<Result>(ret), static_cast<WcStatus>(owc),
                                         static_cast<WcOpcode>(oop), okey, Rule::remote_ok, 3);
          ASSERT_EQ(mwb::meaning_word(o), m);
          ASSERT_TRUE(matches(p, o)) << std::hex << w;
          if (w == mwb::exact_word(o)) ++accepted;
        }
  // Each outcome's exact pattern word is among those, once for each key
  // an outcome can have (0, 1 and 255 here; and none, 0xffff).
  EXPECT_EQ(accepted, nres * nwc * nop * 4);
}

}  // namespace
}  // namespace mwc
