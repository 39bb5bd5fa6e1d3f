#include "replay/usual_batch.hpp"

#include <cstring>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "replay/fast_path.hpp"

namespace mwc::replay {

// Names a way of loading, and an instruction set, in test output.
void PrintTo(BatchLoads l, std::ostream* os) { *os << (l == BatchLoads::gather ? "gather" : "words"); }
void PrintTo(BatchIsa i, std::ostream* os) { *os << batch_isa_name(i); }

namespace {

using Slot = FastPath::HotSlot;
using QpWord = FastPath::QpWord;

// Random check and QP words over few PDs and QPs, so that identities often
// match, and lanes for both variants of two ops.
struct World {
  std::vector<Slot> slots;
  std::vector<QpWord> qps;
  std::vector<KeyLane> lanes;
  UsualTables t;
};

World make_world(std::mt19937_64& rng, uint8_t folded) {
  World w;
  const auto pick = [&](uint64_t n) { return rng() % n; };
  const auto who = [&] { return FastPath::identity(uint32_t(pick(2)), uint32_t(pick(3))); };
  const auto rights = [&] { return uint64_t{pick(4) ? 7u : pick(8)} << kRightsShift; };
  w.qps.resize(3);
  // Now and then a stale QP word (no rights, the top bit).
  for (QpWord& q : w.qps) q = QpWord{pick(8) ? who() | rights() : kTopBit};
  w.slots.resize(40);
  for (Slot& s : w.slots) {
    const uint64_t end = pick(4) ? 4096 + pick(64) : rng() & kEndCap;
    s = Slot{who() | end << kEndShift | rights() | uint64_t{pick(4) != 0} << kAnyQpShift};
  }
  // Codes 28-31: two ops, bare and folded; this world's variant has lanes,
  // under their first bytes and, as the engine's lanes do, under other
  // bytes of the same code (38-41 here: the bytes are read modulo the code
  // count), whose distance from the first bytes names another op's right.
  // Keys 0 and 1: slots 0-19 and 20-39; key 2 none; key 3 part of them.
  w.lanes.resize(kKeyLanes);
  const uint32_t base[4] = {0, 20, 0, 5}, count[4] = {20, 20, 0, 30};
  for (int code = 0; code < 2 * kBatchOps; ++code) {
    const uint8_t rbit = uint8_t(code >> 1 ? 2 : 1);
    w.t.rbits[size_t(code)] = rbit;
    if ((code & 1) != folded) continue;
    for (int k = 0; k < 4; ++k)
      for (const int alias : {0, 10})
        w.lanes[key_lane(uint32_t(k << 28 | (28 + alias + code)))] =
            KeyLane{w.slots.data() + base[k], 8 * count[k], rbit};
  }
  w.t.first_byte = 28;
  take_lanes(w.t, w.lanes.data());
  w.t.qps = w.qps.data(), w.t.nqps = 3;
  return w;
}

// The record loop's scalar check of the record at r, as run_usual states
// it, on the batch's tables.
bool scalar_passes(const World& w, const uint8_t* r) {
  uint64_t word;
  uint32_t off;
  std::memcpy(&word, r, 8);
  std::memcpy(&off, r + 8, 4);
  // The batch takes a code's first byte only (the scalar loop the others).
  if ((word & 0xff) - w.t.first_byte >= 2 * kBatchOps) return false;
  // The lane and the handle as the record format states them: key_lane()
  // and slot_offset() agree with these.
  const KeyLane& e = w.lanes[(word & 0xff) | ((word >> 28) & 3) << 8];
  const uint32_t h = (word >> 8) & 0xfffff, qp = (word >> 32) & 0xffff;
  if (8 * uint64_t{h} >= e.bytes || qp >= w.t.nqps) return false;
  const Slot* slots = static_cast<const Slot*>(e.slots);
  return FastPath::pass_words(w.qps[qp], slots[h], off, uint32_t(word >> 48), e.rbit);
}

// Writes a random record at r: mostly of the variant's codes, handles and
// QPs at and past their ends, offsets and lengths about the words' ends.
void random_record(std::mt19937_64& rng, uint8_t* r) {
  const auto pick = [&](uint64_t n) { return rng() % n; };
  const uint64_t code = pick(8) ? 28 + pick(4) + (pick(4) ? 0 : 10) : pick(256);
  const uint64_t object = pick(22) | pick(4) << 20 | (pick(16) ? 0 : pick(4) << 22);
  const uint64_t qp = pick(16) ? pick(3) : pick(5);
  const uint64_t len = pick(16) ? 1 + pick(64) : pick(2) ? 0 : 0xffff;
  const uint64_t word = code | object << 8 | qp << 32 | len << 48;
  const uint32_t off = uint32_t(pick(8) ? 4000 + pick(100) : pick(2) ? pick(4096) : rng());
  std::memcpy(r, &word, 8);
  std::memcpy(r + 8, &off, 4);
}

// Each instruction set the processor has, and each way of loading the
// words (BatchLoads), whichever this processor takes for replays.
class UsualBatch : public testing::TestWithParam<std::tuple<BatchIsa, BatchLoads>> {};

TEST_P(UsualBatch, StopsWhereTheScalarCheckFirstRefuses) {
  const auto [isa, loads] = GetParam();
  if (!batch_isa_available(isa)) GTEST_SKIP() << "not on this processor: its replays batch on the other, or not at all";
  std::mt19937_64 rng(7);
  uint64_t stopped_in_batch = 0, ran_out = 0;
  for (int round = 0; round < 20000; ++round) {
    World w = make_world(rng, uint8_t(round & 1));
    w.t.loads = loads;
    w.t.isa = isa;
    // A run of records the scalar check passes (up to five batches), then
    // anything.
    const size_t n = 8 + rng() % 48, passing = rng() % n;
    std::vector<uint8_t> bytes(12 * n);
    for (size_t i = 0; i < n; ++i)
      for (int tries = 0; tries < 1000; ++tries) {
        random_record(rng, &bytes[12 * i]);
        if (i >= passing || scalar_passes(w, &bytes[12 * i])) break;
      }
    const uint8_t* const p = bytes.data();
    const uint8_t* const last = p + 12 * (n - rng() % 3);  // the loop's bound, a few records short
    size_t want = 0;
    const size_t batches = size_t(last - p) / 96;
    while (want < 8 * batches && scalar_passes(w, p + 12 * want)) ++want;
    if (want < 8 * batches) ++stopped_in_batch;
    else ++ran_out;
    ASSERT_EQ(size_t(usual_batch(p, last, w.t) - p) / 12, want) << "round " << round;
  }
  // Both ways of stopping came up many times.
  EXPECT_GT(stopped_in_batch, 1000u);
  EXPECT_GT(ran_out, 1000u);
}

INSTANTIATE_TEST_SUITE_P(IsaAndLoads, UsualBatch,
                         testing::Combine(testing::Values(BatchIsa::avx512, BatchIsa::avx2),
                                          testing::Values(BatchLoads::words, BatchLoads::gather)),
                         [](const testing::TestParamInfo<std::tuple<BatchIsa, BatchLoads>>& i) {
                           return std::string(std::get<0>(i.param) == BatchIsa::avx512 ? "Avx512" : "Avx2") +
                                  (std::get<1>(i.param) == BatchLoads::gather ? "Gathered" : "OneByOne");
                         });

// The AVX2 batch names a lane's words by a 32-bit offset from the lowest
// lane's: a lane whose words end 2 GiB or more past it has none that way
// (its records are the scalar loop's), the others keep theirs. No word is
// read here: the addresses are only taken apart.
TEST(TakeLanes, LeavesFarLanesToTheScalarLoop) {
  std::vector<KeyLane> lanes(kKeyLanes);
  const uintptr_t low = 0x10000, gib = uintptr_t{1} << 30;
  const auto at = [](uintptr_t a) { return reinterpret_cast<const void*>(a); };
  // Byte 28's lanes under keys 0-3: the lowest; 1 GiB on; its bytes
  // reaching 2 GiB; 3 GiB on.
  lanes[key_lane(28u | 0u << kKeyShift)] = KeyLane{at(low), 64, 1};
  lanes[key_lane(28u | 1u << kKeyShift)] = KeyLane{at(low + gib), 64, 1};
  lanes[key_lane(28u | 2u << kKeyShift)] = KeyLane{at(low + 2 * gib - 64), 64, 1};
  lanes[key_lane(28u | 3u << kKeyShift)] = KeyLane{at(low + 3 * gib), 64, 1};
  UsualTables t;
  t.first_byte = 28;
  take_lanes(t, lanes.data());
  EXPECT_EQ(t.lane_base, low);
  // Lane j is code index j & 3, key j >> 2.
  EXPECT_EQ(t.lane_off[0], 0u);
  EXPECT_EQ(t.lane_bytes32[0], 64u);
  EXPECT_EQ(t.lane_off[4], uint32_t(gib));
  EXPECT_EQ(t.lane_bytes32[4], 64u);
  EXPECT_EQ(t.lane_bytes32[8], 0u);
  EXPECT_EQ(t.lane_bytes32[12], 0u);
  // The other codes' lanes have no words either way.
  for (const size_t j : {1, 2, 3, 5, 15}) EXPECT_EQ(t.lane_bytes32[j], 0u) << j;
  EXPECT_EQ(t.lane_at[12], low + 3 * gib);
}

}  // namespace
}  // namespace mwc::replay
