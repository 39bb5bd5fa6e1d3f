#include "replay/usual_batch.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "util/x86_intrinsics.hpp"

namespace mwc::replay {

bool batch_isa_available(BatchIsa isa) {
  static const std::array<bool, 2> has = [] {
    __builtin_cpu_init();
    return std::array<bool, 2>{__builtin_cpu_supports("avx512f") != 0, __builtin_cpu_supports("avx2") != 0};
  }();
  return has[static_cast<size_t>(isa)];
}

bool usual_batch_available() { return batch_isa_available(BatchIsa::avx512) || batch_isa_available(BatchIsa::avx2); }

BatchIsa best_batch_isa() { return batch_isa_available(BatchIsa::avx512) ? BatchIsa::avx512 : BatchIsa::avx2; }

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

#define MWC_AVX2 __attribute__((target("avx2"), always_inline)) inline

// Returns the four qwords at the addresses in `at`, loaded one by one, the
// addresses taken out of the register.
MWC_AVX2 __m256i words_at(__m256i at) {
  const __m128i lo = _mm256_castsi256_si128(at), hi = _mm256_extracti128_si256(at, 1);
  const auto word = [](int64_t a) {
    uint64_t w;
    std::memcpy(&w, reinterpret_cast<const void*>(a), 8);
    return static_cast<int64_t>(w);
  };
  return _mm256_setr_epi64x(word(_mm_cvtsi128_si64(lo)), word(_mm_extract_epi64(lo, 1)),
                            word(_mm_cvtsi128_si64(hi)), word(_mm_extract_epi64(hi, 1)));
}

// What four records are checked against, in registers: UsualTables' for
// AVX2 (rbits as dwords, to be moved to the rights' bits; the lanes'
// offsets and bytes as sixteen dwords, two registers each).
struct Avx2Tables {
  __m256i rbits, first_byte, off_lo, off_hi, bytes_lo, bytes_hi, base, refused, qps, nqps;
};

// Returns the eight dwords from d.
MWC_AVX2 __m256i dwords(const uint32_t* d) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(d)); }

// Returns lane l's dword of a table of sixteen (lanes 0-7 in lo, 8-15 in
// hi; `upper` says which), zero-extended, in each qword.
MWC_AVX2 __m256i lane_dword(__m256i lo, __m256i hi, __m256i l, __m256i upper) {
  const __m256i both = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, l), _mm256_permutevar8x32_epi32(hi, l), upper);
  return _mm256_and_si256(both, _mm256_set1_epi64x(0xffffffff));
}

// Returns, in each qword, all ones where the record passes: the four
// records at r (48 bytes) checked as check_batches() checks eight.
template <BatchLoads Loads>
MWC_AVX2 __m256i pass_four(const uint8_t* r, const Avx2Tables& t) {
  const __m256i low32 = _mm256_set1_epi64x(0xffffffff);
  const __m256i zero = _mm256_setzero_si256();
  // Dwords 0-7 and 8-11; each record's first two dwords (w, record 3's
  // are dwords 9-10) and its third (off).
  const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r + 32));
  const __m256i w = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(lo, _mm256_setr_epi32(0, 1, 3, 4, 6, 7, 6, 7)),
                                       _mm256_broadcastq_epi64(_mm_srli_si128(hi, 4)), 0xc0);
  const __m128i off_2_5 =
      _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(lo, _mm256_setr_epi32(2, 5, 2, 5, 2, 5, 2, 5)));
  const __m256i off =
      _mm256_cvtepu32_epi64(_mm_blend_epi32(off_2_5, _mm_shuffle_epi32(hi, _MM_SHUFFLE(3, 0, 3, 0)), 0xc));
  // The code byte's index among the compact codes' bytes (as the AVX-512
  // batch takes it); any other byte picks some lane and fails here.
  const __m256i code = _mm256_and_si256(_mm256_sub_epi64(w, t.first_byte), _mm256_set1_epi64x(0xff));
  __m256i ok = _mm256_cmpgt_epi64(_mm256_set1_epi64x(2 * kBatchOps), code);
  const __m256i lane =
      _mm256_or_si256(code, _mm256_and_si256(_mm256_srli_epi64(w, kKeyShift - 2), _mm256_set1_epi64x(0xc)));
  const __m256i upper = _mm256_cmpgt_epi64(lane, _mm256_set1_epi64x(7));
  const __m256i at = _mm256_and_si256(_mm256_srli_epi64(w, kSlotShift), _mm256_set1_epi64x(kSlotMask));
  // Every value compared is below 2^33: signed compares answer as unsigned ones.
  const __m256i inside = _mm256_cmpgt_epi64(lane_dword(t.bytes_lo, t.bytes_hi, lane, upper), at);
  const __m256i q = _mm256_and_si256(_mm256_srli_epi64(w, 32), _mm256_set1_epi64x(0xffff));
  const __m256i slot_at = _mm256_blendv_epi8(
      t.refused, _mm256_add_epi64(t.base, _mm256_add_epi64(lane_dword(t.off_lo, t.off_hi, lane, upper), at)), inside);
  const __m256i qp_at =
      _mm256_blendv_epi8(t.refused, _mm256_add_epi64(t.qps, _mm256_slli_epi64(q, 3)), _mm256_cmpgt_epi64(t.nqps, q));
  __m256i s, qw;
  if constexpr (Loads == BatchLoads::gather) {
    // Each address is a whole pointer: the gathers' base is 0.
    s = _mm256_i64gather_epi64(static_cast<const long long*>(nullptr), slot_at, 1);
    qw = _mm256_i64gather_epi64(static_cast<const long long*>(nullptr), qp_at, 1);
  } else {
    s = words_at(slot_at), qw = words_at(qp_at);
  }
  // (serves & rights & rbit) != 0: the code's rbit dword moved to the rights' bits.
  const __m256i rbit = _mm256_slli_epi64(_mm256_permutevar8x32_epi32(t.rbits, code), 32);
  ok = _mm256_andnot_si256(_mm256_cmpeq_epi64(_mm256_and_si256(_mm256_and_si256(qw, s), rbit), zero), ok);
  // The identities match (the PD's bits alone where any QP of it may).
  const __m256i shift = _mm256_and_si256(_mm256_srli_epi64(s, kAnyQpShift - 4), _mm256_set1_epi64x(kPdShift));
  ok = _mm256_and_si256(
      ok, _mm256_cmpeq_epi64(_mm256_srlv_epi64(_mm256_and_si256(_mm256_xor_si256(qw, s), low32), shift), zero));
  // off + (u32)(len - 1) < end.
  const __m256i end = _mm256_and_si256(_mm256_srli_epi64(s, kEndShift), _mm256_set1_epi64x(kEndCap));
  const __m256i last =
      _mm256_and_si256(_mm256_sub_epi64(_mm256_srli_epi64(w, 48), _mm256_set1_epi64x(1)), low32);
  return _mm256_and_si256(ok, _mm256_cmpgt_epi64(end, _mm256_add_epi64(off, last)));
}

// The same eight records a step as check_batches(), as two halves of four
// (AVX2 has no eight-qword registers), their answers joined into one mask.
template <BatchLoads Loads>
__attribute__((target("avx2"))) const uint8_t* check_batches_avx2(const uint8_t* p, const uint8_t* last,
                                                                  const UsualTables& t) {
  static_assert(kRightsShift >= 32, "the rights are in the high dword");
  alignas(32) std::array<uint32_t, 8> rbits{};
  for (size_t i = 0; i < 8; ++i) rbits[i] = static_cast<uint32_t>(t.rbits[i] << (kRightsShift - 32));
  const Avx2Tables x{dwords(rbits.data()),
                     _mm256_set1_epi64x(t.first_byte),
                     dwords(t.lane_off.data()),
                     dwords(t.lane_off.data() + 8),
                     dwords(t.lane_bytes32.data()),
                     dwords(t.lane_bytes32.data() + 8),
                     _mm256_set1_epi64x(static_cast<int64_t>(t.lane_base)),
                     _mm256_set1_epi64x(static_cast<int64_t>(reinterpret_cast<uintptr_t>(&kRefused))),
                     _mm256_set1_epi64x(static_cast<int64_t>(reinterpret_cast<uintptr_t>(t.qps))),
                     _mm256_set1_epi64x(t.nqps)};
  constexpr std::ptrdiff_t kBatch = 8 * 12;
  constexpr std::ptrdiff_t kAhead = 2048;
  for (; last - p >= kBatch; p += kBatch) {
    _mm_prefetch(reinterpret_cast<const char*>(p + kAhead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(p + kAhead + 64), _MM_HINT_T0);
    const auto first = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(pass_four<Loads>(p, x))));
    const auto second = static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(pass_four<Loads>(p + 48, x))));
    const unsigned ok = first | second << 4;
    if (ok != 0xff) return p + 12 * __builtin_ctz(~ok);
  }
  return p;
}

// Returns where the batch stopped, on t.isa.
template <BatchLoads Loads>
const uint8_t* run_batches(const uint8_t* p, const uint8_t* last, const UsualTables& t) {
  return t.isa == BatchIsa::avx512 ? check_batches<Loads>(p, last, t) : check_batches_avx2<Loads>(p, last, t);
}

// Returns the seconds the faster of `reps` checks of the records in `bytes`
// took, each checking all of them (they all pass) as Loads says.
template <BatchLoads Loads>
double best_seconds(const std::vector<uint8_t>& bytes, const UsualTables& t, int reps) {
  double best = 1e9;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const uint8_t* const stop = run_batches<Loads>(bytes.data(), bytes.data() + bytes.size(), t);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
    // A batch that stopped early would time less work: then this way is not taken.
    if (stop != bytes.data() + bytes.size()) return 1e9;
    best = std::min(best, took.count());
  }
  return best;
}

}  // namespace

const uint8_t* usual_batch(const uint8_t* p, const uint8_t* last, const UsualTables& t) {
  return t.loads == BatchLoads::gather ? run_batches<BatchLoads::gather>(p, last, t)
                                       : run_batches<BatchLoads::words>(p, last, t);
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
    std::vector<KeyLane> lanes(kKeyLanes, KeyLane{slots.data(), 8 * kSlots, 1});
    take_lanes(t, lanes.data());
    t.qps = qps.data(), t.nqps = kQps;
    t.isa = best_batch_isa();
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
