#include "replay/usual_batch.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "util/x86_intrinsics.hpp"

namespace mwc::replay {

bool usual_batch_available() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
  }();
  return yes;
}

namespace {

#define MWC_AVX512 __attribute__((target("avx512f"), always_inline)) inline

// A word no record passes (no rights, end 0): a record whose handle or QP
// is past its table reads it.
alignas(8) constexpr uint64_t kRefused = 0;

// Returns the eight qwords at the addresses in `at`, loaded one by one,
// each broadcast into its lane under a mask: a load and a merge each, none
// waiting on the shuffle port (the data-path mix at 461-465 M ops/s on an
// Intel Xeon, against 442 with pairs inserted and 404 with a set of eight).
MWC_AVX512 __m512i words_at(__m512i at) {
  alignas(64) uint64_t addr[8];
  _mm512_store_si512(addr, at);
  __m512i v = _mm512_setzero_si512();
  for (int i = 0; i < 8; ++i) {
    uint64_t w;
    std::memcpy(&w, reinterpret_cast<const void*>(addr[i]), 8);
    v = _mm512_mask_set1_epi64(v, static_cast<__mmask8>(1u << i), static_cast<int64_t>(w));
  }
  return v;
}

// Records are 12 bytes, three dwords: u8 code, u24 object (a 20-bit handle,
// then the key bits 20-21), u16 qp, u16 len (the first two dwords, as the
// scalar loop's word w), u32 offset. Eight records are 24 dwords, read as
// 16 and 8 (a masked load: nothing past them is touched). The words'
// addresses are worked out side by side: of the lanes, a batch reads only
// those of the compact codes' first bytes, 16 with the key bits, held in
// registers (past a table's end, the refused word); the words themselves
// are loaded from those addresses as Loads says (BatchLoads), and checked
// as pass_words() checks one record.
template <BatchLoads Loads>
__attribute__((target("avx512f"))) const uint8_t* check_batches(const uint8_t* p, const uint8_t* last,
                                                                const UsualTables& t) {
  const __m512i word_dwords = _mm512_setr_epi32(0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22);
  const __m512i off_dwords = _mm512_setr_epi32(2, 0, 5, 0, 8, 0, 11, 0, 14, 0, 17, 0, 20, 0, 23, 0);
  const __m512i low32 = _mm512_set1_epi64(0xffffffff);
  const __m512i low8 = _mm512_set1_epi64(0xff);
  const __m512i low16 = _mm512_set1_epi64(0xffff);
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i end_cap = _mm512_set1_epi64(kEndCap);
  const __m512i pd_alone = _mm512_set1_epi64(kPdShift);
  // bit(right) by code index, moved to where the words' rights are.
  const __m512i rbits = _mm512_maskz_slli_epi64(0xff, _mm512_loadu_si512(t.rbits.data()), kRightsShift);
  const __m512i first_byte = _mm512_set1_epi64(t.first_byte);
  const __m512i codes = _mm512_set1_epi64(2 * kBatchOps);  // each op bare and folded
  const __m512i at_lo = _mm512_loadu_si512(t.lane_at.data()), at_hi = _mm512_loadu_si512(t.lane_at.data() + 8);
  const __m512i bytes_lo = _mm512_loadu_si512(t.lane_bytes.data());
  const __m512i bytes_hi = _mm512_loadu_si512(t.lane_bytes.data() + 8);
  const __m512i refused = _mm512_set1_epi64(static_cast<int64_t>(reinterpret_cast<uintptr_t>(&kRefused)));
  const __m512i qps = _mm512_set1_epi64(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.qps)));
  const __m512i nqps = _mm512_set1_epi64(t.nqps);
  constexpr std::ptrdiff_t kBatch = 8 * 12;
  constexpr std::ptrdiff_t kAhead = 2048;
  for (; last - p >= kBatch; p += kBatch) {
    // The records stream from memory: ask for them well ahead (a batch
    // takes a line and a half).
    _mm_prefetch(reinterpret_cast<const char*>(p + kAhead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(p + kAhead + 64), _MM_HINT_T0);
    const __m512i lo = _mm512_loadu_si512(p);
    const __m512i hi = _mm512_maskz_loadu_epi32(0x00ff, p + 64);
    const __m512i w = _mm512_permutex2var_epi32(lo, word_dwords, hi);
    const __m512i off = _mm512_and_si512(_mm512_permutex2var_epi32(lo, off_dwords, hi), low32);
    // The code byte's index among the compact codes' bytes, which picks its
    // rbit: only those bytes pass here (another byte of the same code, read
    // modulo the code count, is the scalar loop's; a code of the other
    // variant has a lane of no words, so reads the refused word).
    const __m512i code = _mm512_and_si512(_mm512_sub_epi64(w, first_byte), low8);
    __mmask8 ok = _mm512_cmplt_epu64_mask(code, codes);
    // The words' addresses: the lane's by code index and key (bits 2-3 of
    // the lane, as take_lanes() lays them out) plus the handle times 8
    // (slot_offset()); the QP's by its number.
    const __m512i lane =
        _mm512_or_si512(code, _mm512_and_si512(_mm512_srli_epi64(w, kKeyShift - 2), _mm512_set1_epi64(0xc)));
    const __m512i at = _mm512_and_si512(_mm512_srli_epi64(w, kSlotShift), _mm512_set1_epi64(kSlotMask));
    const __mmask8 inside = _mm512_cmplt_epu64_mask(at, _mm512_permutex2var_epi64(bytes_lo, lane, bytes_hi));
    const __m512i q = _mm512_and_si512(_mm512_srli_epi64(w, 32), low16);
    const __m512i slot_at =
        _mm512_mask_add_epi64(refused, inside, _mm512_permutex2var_epi64(at_lo, lane, at_hi), at);
    const __m512i qp_at =
        _mm512_mask_add_epi64(refused, _mm512_cmplt_epu64_mask(q, nqps), qps, _mm512_slli_epi64(q, 3));
    __m512i s, qw;
    if constexpr (Loads == BatchLoads::gather) {
      // Each address is a whole pointer: the gathers' base is 0.
      s = _mm512_i64gather_epi64(slot_at, nullptr, 1), qw = _mm512_i64gather_epi64(qp_at, nullptr, 1);
    } else {
      s = words_at(slot_at), qw = words_at(qp_at);
    }
    const __m512i rbit = _mm512_permutexvar_epi64(code, rbits);
    const __m512i len = _mm512_srli_epi64(w, 48);
    // (serves & rights & rbit) != 0.
    ok &= _mm512_test_epi64_mask(_mm512_and_si512(qw, s), rbit);
    // The identities match (the PD's bits alone where any QP of it may):
    // the any-QP bit moved to kPdShift's one bit, as pass_words() shifts.
    static_assert(kPdShift == 16, "the any-QP bit lands on bit 4");
    const __m512i shift = _mm512_and_si512(_mm512_srli_epi64(s, kAnyQpShift - 4), pd_alone);
    ok &= _mm512_testn_epi64_mask(_mm512_srlv_epi64(_mm512_and_si512(_mm512_xor_si512(qw, s), low32), shift),
                                  _mm512_set1_epi64(-1));
    // off + (u32)(len - 1) < end.
    const __m512i end = _mm512_and_si512(_mm512_srli_epi64(s, kEndShift), end_cap);
    const __m512i end_off = _mm512_add_epi64(off, _mm512_and_si512(_mm512_sub_epi64(len, one), low32));
    ok &= _mm512_cmplt_epu64_mask(end_off, end);
    if (ok != 0xff) return p + 12 * __builtin_ctz(~static_cast<unsigned>(ok));
  }
  return p;
}

// Returns the seconds the faster of `reps` checks of the records in `bytes`
// took, each checking all of them (they all pass) as Loads says.
template <BatchLoads Loads>
double best_seconds(const std::vector<uint8_t>& bytes, const UsualTables& t, int reps) {
  double best = 1e9;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const uint8_t* const stop = check_batches<Loads>(bytes.data(), bytes.data() + bytes.size(), t);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    // A batch that stopped early would time less work: then this way is not taken.
    if (stop != bytes.data() + bytes.size()) return 1e9;
    best = std::min(best, took.count());
  }
  return best;
}

}  // namespace

const uint8_t* usual_batch(const uint8_t* p, const uint8_t* last, const UsualTables& t) {
  return t.loads == BatchLoads::gather ? check_batches<BatchLoads::gather>(p, last, t)
                                       : check_batches<BatchLoads::words>(p, last, t);
}

BatchLoads faster_batch_loads() {
  static const BatchLoads faster = [] {
    if (!usual_batch_available()) return BatchLoads::words;
    // Check words for as many objects as the default mix has (12,288),
    // 64 QP words, and 4,096 records (48 KiB) naming them in no order a
    // prefetcher follows; every word passes every record (all rights, one
    // identity, offsets below the end).
    constexpr uint32_t kSlots = 12288, kQps = 64, kRecords = 4096;
    const uint64_t all_rights = uint64_t{7} << kRightsShift;
    const std::vector<uint64_t> slots(kSlots, uint64_t{4096} << kEndShift | all_rights), qps(kQps, all_rights);
    UsualTables t;
    t.rbits.fill(1);
    t.lane_at.fill(reinterpret_cast<uintptr_t>(slots.data()));
    t.lane_bytes.fill(8 * kSlots);
    t.qps = qps.data(), t.nqps = kQps;
    std::vector<uint8_t> bytes(12 * kRecords);
    uint64_t x = 1;
    for (uint32_t i = 0; i < kRecords; ++i) {
      x = x * 6364136223846793005u + 1442695040888963407u;  // an LCG: the same records every time
      const uint64_t handle = (x >> 33) % kSlots, qp = (x >> 20) % kQps;
      const uint64_t word = (i % (2 * kBatchOps)) | handle << 8 | qp << 32 | uint64_t{64} << 48;
      const auto off = static_cast<uint32_t>((x >> 40) % (4096 - 64));  // off + 64 <= end
      std::memcpy(&bytes[12 * i], &word, 8);
      std::memcpy(&bytes[12 * i + 8], &off, 4);
    }
    // Alternately, so that a pause of the machine hurts both alike.
    double words = 1e9, gather = 1e9;
    for (int round = 0; round < 3; ++round) {
      words = std::min(words, best_seconds<BatchLoads::words>(bytes, t, 2));
      gather = std::min(gather, best_seconds<BatchLoads::gather>(bytes, t, 2));
    }
    return gather < words ? BatchLoads::gather : BatchLoads::words;
  }();
  return faster;
}

}  // namespace mwc::replay
