#include "replay/usual_batch.hpp"

#include <cstddef>
#include <tuple>

// GCC 12's AVX-512 intrinsics start from an "undefined" vector that
// -Wmaybe-uninitialized takes for a read of one (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif

namespace mwc::replay {

bool usual_batch_available() {
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") != 0;
  }();
  return yes;
}

namespace {

#define MWC_AVX512 __attribute__((target("avx512f"), always_inline)) inline

// Returns the two 16-byte words at table + 16 * the two indices in x.
MWC_AVX512 __m256i two_words(const uint8_t* table, __m128i x) {
  const auto* a = reinterpret_cast<const __m128i*>(table + 16 * static_cast<uint64_t>(_mm_cvtsi128_si64(x)));
  const auto* b = reinterpret_cast<const __m128i*>(table + 16 * static_cast<uint64_t>(_mm_extract_epi64(x, 1)));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(a)), _mm_loadu_si128(b), 1);
}

// Sets `first` and `second` to the first and second qwords of the eight
// 16-byte words at table + 16 * index (by lane). Loads and shuffles, no
// gather: this processor's gathers cost more than the scalar loop.
MWC_AVX512 void load_words(const uint8_t* table, __m512i index, __m512i& first, __m512i& second) {
  const __m256i lo = _mm512_castsi512_si256(index), hi = _mm512_extracti64x4_epi64(index, 1);
  const __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(two_words(table, _mm256_castsi256_si128(lo))),
                                       two_words(table, _mm256_extracti128_si256(lo, 1)), 1);
  const __m512i b = _mm512_inserti64x4(_mm512_castsi256_si512(two_words(table, _mm256_castsi256_si128(hi))),
                                       two_words(table, _mm256_extracti128_si256(hi, 1)), 1);
  first = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), b);
  second = _mm512_permutex2var_epi64(a, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), b);
}

}  // namespace

// Records are 12 bytes, three dwords: u8 code, u24 object (a 20-bit handle,
// then the key bits 20-21), u16 qp, u16 len (the first two dwords, as the
// scalar loop's word w), u32 offset. Eight of them are 24 dwords, read as
// 16 and 8 (a masked load: nothing past them is touched).
__attribute__((target("avx512f"))) const uint8_t* usual_batch(const uint8_t* p, const uint8_t* last,
                                                             const UsualTables& t) {
  const __m512i word_dwords = _mm512_setr_epi32(0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22);
  const __m512i off_dwords = _mm512_setr_epi32(2, 0, 5, 0, 8, 0, 11, 0, 14, 0, 17, 0, 20, 0, 23, 0);
  const __m512i low32 = _mm512_set1_epi64(0xffffffff);
  const __m512i low24 = _mm512_set1_epi64(0xffffff);
  const __m512i low20 = _mm512_set1_epi64(0xfffff);
  const __m512i low16 = _mm512_set1_epi64(0xffff);
  const __m512i low8 = _mm512_set1_epi64(0xff);
  const __m512i one = _mm512_set1_epi64(1);
  static_assert(std::tuple_size_v<decltype(t.lanes)> == 8, "the lanes fill one vector");
  const __m512i lanes = _mm512_loadu_si512(t.lanes.data());
  const __m512i first_byte = _mm512_set1_epi64(t.first_byte);
  const __m512i codes = _mm512_set1_epi64(2 * kBatchOps);  // each op bare and folded
  const __m512i folded = _mm512_set1_epi64(t.folded);
  const __m512i nqps = _mm512_set1_epi64(t.nqps);
  const auto* slots = static_cast<const uint8_t*>(t.slots);
  const auto* qps = static_cast<const uint8_t*>(t.qps);
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
    // The code's index among the compact codes: one of this variant's.
    const __m512i code = _mm512_sub_epi64(_mm512_and_si512(w, low8), first_byte);
    __mmask8 ok = _mm512_cmplt_epu64_mask(code, codes) &
                  _mm512_cmpeq_epu64_mask(_mm512_and_si512(code, one), folded);
    // Its lane: op * 4 + key bits.
    const __m512i li = _mm512_or_si512(_mm512_slli_epi64(_mm512_srli_epi64(code, 1), 2),
                                       _mm512_and_si512(_mm512_srli_epi64(w, 28), _mm512_set1_epi64(3)));
    const __m512i lane = _mm512_permutexvar_epi64(li, lanes);
    const __m512i h = _mm512_and_si512(_mm512_srli_epi64(w, 8), low20);
    const __m512i qp = _mm512_and_si512(_mm512_srli_epi64(w, 32), low16);
    const __m512i len = _mm512_srli_epi64(w, 48);
    const __m512i count = _mm512_and_si512(_mm512_srli_epi64(lane, 24), low24);
    // Handles past the caps are the scalar path's (it reduces them).
    ok &= _mm512_cmplt_epu64_mask(h, count) & _mm512_cmplt_epu64_mask(qp, nqps);
    // A lane that failed reads word 0 of each table, which exists.
    __m512i s_who, s_rest, q_who, q_rest;
    load_words(slots, _mm512_maskz_add_epi64(ok, _mm512_and_si512(lane, low24), h), s_who, s_rest);
    load_words(qps, _mm512_maskz_mov_epi64(ok, qp), q_who, q_rest);
    // (serves & rights & rbit) != 0: serves and rights are the rests' byte
    // 4, rbit the lane's byte 6.
    const __m512i rights = _mm512_and_si512(_mm512_srli_epi64(_mm512_and_si512(q_rest, s_rest), 32),
                                            _mm512_srli_epi64(lane, 48));
    ok &= _mm512_test_epi64_mask(rights, low8);
    // ((q.who ^ s.who) >> shift) == 0, shift the slot rest's byte 5.
    const __m512i shift = _mm512_and_si512(_mm512_srli_epi64(s_rest, 40), low8);
    ok &= _mm512_testn_epi64_mask(_mm512_srlv_epi64(_mm512_xor_si512(q_who, s_who), shift),
                                  _mm512_set1_epi64(-1));
    // off + (u32)(len - 1) < end.
    const __m512i end = _mm512_and_si512(s_rest, low32);
    const __m512i end_off = _mm512_add_epi64(off, _mm512_and_si512(_mm512_sub_epi64(len, one), low32));
    ok &= _mm512_cmplt_epu64_mask(end_off, end);
    if (ok != 0xff) return p + 12 * __builtin_ctz(~static_cast<unsigned>(ok));
  }
  return p;
}

}  // namespace mwc::replay
