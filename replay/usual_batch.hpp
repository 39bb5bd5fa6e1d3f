// The record loop's check (FastPath::pass_words) on eight compact records
// at once, with AVX-512 where the processor has it, for long runs of them
// (a data path's traffic): eight records are decoded by permutes, their
// check and QP words loaded and compared side by side, and one mask says
// how many of them, from the first, pass. The answer is pass_words' own,
// record by record: usual_batch_test.cpp holds the two equal on random
// records and tables, and the engine's differential tests and fuzzers run
// whichever the processor takes.
#pragma once
#include <array>
#include <cstdint>

namespace mwc::replay {

// What the batch reads, as the engine lays it out, for folded or bare
// compact records (`folded`): the record loop's lane entries (pack_lane())
// of the compact codes' first bytes, by op (the code's index from
// `first_byte`, halved) times 4 plus key bits; the check words
// (FastPath::HotSlot, 16 bytes: identity, then end, rights and shift); the
// QP words (FastPath::QpWord, 16 bytes: identity, then responder and
// serves); the QP count. Both tables have at least one word.
inline constexpr int kBatchOps = 2;  // compact ops (mwb::kCompactOpCount: engine.cpp checks)
struct UsualTables {
  std::array<uint64_t, 4 * kBatchOps> lanes{};
  uint8_t first_byte = 0;
  uint8_t folded = 0;
  const void* slots = nullptr;
  const void* qps = nullptr;
  uint32_t nqps = 0;
};

// The largest base and count a lane entry holds.
inline constexpr uint32_t kLaneMax = 0xffffff;
// Returns a lane entry: check words from index `base`, `count` of them
// (0: the record never passes here), the record's right as FastPath::bit;
// base and count at most kLaneMax.
constexpr uint64_t pack_lane(uint32_t base, uint32_t count, uint8_t rbit) {
  return uint64_t{base & kLaneMax} | uint64_t{count & kLaneMax} << 24 | uint64_t{rbit} << 48;
}

// Returns whether this processor runs usual_batch() (AVX-512F).
bool usual_batch_available();

// Runs the check on compact records from p, eight at a time, while all
// eight pass and end at or before `last` (the record loop's bound: it
// never runs the last record of the bytes fed). Returns where it stopped:
// at the first record it does not pass (a record code byte other than the
// first of its code counts as not passed: the scalar loop decides it), or
// where fewer than eight records are left before `last`. Only on a
// processor usual_batch_available() says yes for.
const uint8_t* usual_batch(const uint8_t* p, const uint8_t* last, const UsualTables& t);

}  // namespace mwc::replay
