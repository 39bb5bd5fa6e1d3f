// The record loop's check (FastPath::pass_words) on eight compact records
// at once, for long runs of them (a data path's traffic), with AVX-512
// where the processor has it, else with AVX2 (two halves of four): the
// records' fields taken apart by permutes, the words' addresses worked out
// side by side, the check and QP words loaded (one by one or gathered,
// whichever this processor does faster) and compared side by side, and one
// mask says how many of the eight, from the first, pass. The answer is
// pass_words' own, record by record: usual_batch_test.cpp holds the two
// equal on random records and tables for each instruction set the
// processor has, and the engine's differential tests and fuzzers run every
// way the processor takes.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace mwc::replay {

inline constexpr int kBatchOps = 2;  // compact ops (mwb::kCompactOpCount: engine.cpp checks)

// The check words, one qword each, so that a batch gathers each record's
// two words with one load each: a key's object's (FastPath::HotSlot) and
// its QP's (FastPath::QpWord). Both hold an identity in bits 0-31 (a QP's
// handle in 0-15, its PD in 16-31) and rights in bits 60-62 (bit(right):
// those the object grants, those the QP's responder serves). An object's
// word also holds the end of the offsets inside (bits 32-59: larger ends
// are capped, so an access past the cap asks the scalar path) and, in bit
// 63, whether any QP of the PD may use it (then only bits 16-31 must
// match); a QP's holds, in bit 63, that its copy is stale (no rights then).
inline constexpr uint64_t kIdBits = 0xffffffff;
inline constexpr uint64_t kHandleBits = 0xffff;  // a QP's or a PD's handle (kMaxCap: 2^16 of each)
inline constexpr int kPdShift = 16, kEndShift = 32, kRightsShift = 60, kAnyQpShift = 63;
inline constexpr uint64_t kEndCap = (uint64_t{1} << 28) - 1;
inline constexpr uint64_t kTopBit = uint64_t{1} << 63;
// Returns whether a record's access [off, off + len) of right rbit by the
// QP of word q passes the check word s: the record loop's check, which
// the batch states lane by lane. len 0 never passes (its rule is another).
[[gnu::always_inline]] inline bool pass_words(uint64_t q, uint64_t s, uint32_t off, uint32_t len, uint8_t rbit) {
  const uint64_t last = uint64_t{off} + static_cast<uint32_t>(len - 1);
  const uint64_t id = (q ^ s) & kIdBits;
  const unsigned any_qp = static_cast<unsigned>(s >> kAnyQpShift) * kPdShift;  // the PD alone
  return ((q & s) >> kRightsShift & rbit) != 0 && (id >> any_qp) == 0 && last < (s >> kEndShift & kEndCap);
}

// The record loop's lane of a compact code byte and key field (object bits
// 20-21), folded or bare: where the check words of the objects the key
// names start, the bytes they take (8 per object; 0: none, or a code of
// the other variant; the scalar path decides), and bit(right) of its op.
// 16 bytes, so that each is read in place.
struct alignas(16) KeyLane {
  const void* slots = nullptr;
  uint32_t bytes = 0;
  uint8_t rbit = 0;
};
static_assert(sizeof(KeyLane) == 16);
// A lane for each code byte and key field.
inline constexpr size_t kKeyLanes = 1024;
// Where a compact record's first dword holds the key field (object bits
// 20-21), and its handle times 8 once shifted right by kSlotShift: the
// scalar loop and the batch both take them apart by these.
inline constexpr int kKeyShift = 28, kSlotShift = 5;
inline constexpr uint32_t kSlotMask = 0x7ffff8;
// Returns the lane index of a compact record whose first dword is d: the
// code byte, and the key field above it.
constexpr size_t key_lane(uint32_t d) { return (d & 0xff) | ((d >> kKeyShift) & 3) << 8; }
// Returns the byte offset of a compact record's object among its lane's
// check words (its 20-bit handle times 8), d its first dword.
constexpr uint32_t slot_offset(uint32_t d) { return (d >> kSlotShift) & kSlotMask; }

// How a batch loads the check and QP words of its eight records: one by
// one, then put side by side (words), or by two AVX-512 gathers (gather).
// Both give the same answer; which is faster depends on the processor:
// with words of 16 bytes (four gathers), gathers made the data-path mix's
// replay 1.4 times as fast on an Intel Xeon (Emerald Rapids) and 0.7
// times on an AMD EPYC, so faster_batch_loads() times both.
enum class BatchLoads : uint8_t { words, gather };

// The instruction sets a batch runs on: AVX-512F (the eight records side
// by side) or AVX2 (four and four).
enum class BatchIsa : uint8_t { avx512, avx2 };
// Returns the instruction set's name as people write it.
constexpr const char* batch_isa_name(BatchIsa i) { return i == BatchIsa::avx512 ? "AVX-512" : "AVX2"; }

// What the batch reads, as the engine lays it out, for folded or bare
// compact records: bit(right) of each compact code by its index from
// `first_byte` (the compact codes' bytes are consecutive from it); the
// lanes of those bytes (take_lanes()), the only ones the batch reads, by
// code index (bits 0-1) and key (bits 2-3): where their check words start
// and the bytes they take, as addresses (AVX-512) and as 32-bit offsets
// from lane_base (AVX2: sixteen of them fit two registers); the QP words
// and their count; and how to load the words, on which instruction set.
struct UsualTables {
  std::array<uint64_t, 8> rbits{};
  uint8_t first_byte = 0;
  std::array<uint64_t, 16> lane_at{}, lane_bytes{};
  uintptr_t lane_base = 0;
  std::array<uint32_t, 16> lane_off{}, lane_bytes32{};
  const void* qps = nullptr;
  uint32_t nqps = 0;
  BatchLoads loads = BatchLoads::words;
  BatchIsa isa = BatchIsa::avx512;
};
static_assert(2 * kBatchOps <= 8, "a code's index picks one of eight rbits");
static_assert(2 * kBatchOps == 4, "a lane's index holds the code index in two bits");

// Sets t's lanes from the record loop's (kKeyLanes of them, by
// key_lane()), those of the bytes from t.first_byte. A lane whose words
// end 2 GiB or more past the lowest lane's start gets none in the offsets'
// form (AVX2 leaves its records to the scalar loop).
inline void take_lanes(UsualTables& t, const KeyLane* lanes) {
  t.lane_base = UINTPTR_MAX;
  for (uint32_t j = 0; j < 16; ++j) {
    const KeyLane& e = lanes[key_lane((t.first_byte + (j & 3)) | (j >> 2) << kKeyShift)];
    t.lane_at[j] = reinterpret_cast<uintptr_t>(e.slots), t.lane_bytes[j] = e.bytes;
    if (e.bytes) t.lane_base = std::min(t.lane_base, t.lane_at[j]);
  }
  if (t.lane_base == UINTPTR_MAX) t.lane_base = 0;
  for (uint32_t j = 0; j < 16; ++j) {
    const uint64_t off = t.lane_bytes[j] ? t.lane_at[j] - t.lane_base : 0;
    const bool near = off + t.lane_bytes[j] < (uint64_t{1} << 31);
    t.lane_off[j] = near ? static_cast<uint32_t>(off) : 0;
    t.lane_bytes32[j] = near ? static_cast<uint32_t>(t.lane_bytes[j]) : 0;
  }
}

// Returns whether this processor runs a batch on `isa`.
bool batch_isa_available(BatchIsa isa);
// Returns whether this processor runs usual_batch() (AVX-512F or AVX2).
bool usual_batch_available();
// Returns the instruction set replays batch on: AVX-512F where the
// processor has it, else AVX2.
BatchIsa best_batch_isa();

// Returns the way of loading that checked a run of records faster on this
// processor (on best_batch_isa()), over tables as large as the default
// mix's: both timed once per process, the first time it is asked (about
// 0.1 ms). Words where usual_batch_available() says no. Which one is
// taken changes no answer, only the speed.
BatchLoads faster_batch_loads();

// Runs the check on compact records from p, eight at a time, while all
// eight pass and end at or before `last` (the record loop's bound: it
// never runs the last record of the bytes fed). Returns where it stopped:
// at the first record it does not pass (a code byte other than the
// compact codes' first bytes, or a code without words in its lane, counts
// as not passed: the scalar loop decides it), or where fewer than eight
// records are left before `last`. Loads the words as t.loads says, on
// t.isa. Only where batch_isa_available(t.isa).
const uint8_t* usual_batch(const uint8_t* p, const uint8_t* last, const UsualTables& t);

}  // namespace mwc::replay
