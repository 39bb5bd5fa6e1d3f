#include "refmodel/checksum.hpp"

#include <new>

#include "util/x86_intrinsics.hpp"  // for the AVX2 and AVX-512 kernels

// xxHash as a header: its functions inlined here, static, so that no other
// file sees them and nothing is linked. As its x86 dispatcher is built:
// the AVX2 and AVX-512 kernels compiled for those instruction sets alone
// (the rest of this file for any x86-64), the accumulator aligned for all.
#define XXH_INLINE_ALL
#define XXH_X86DISPATCH
#define XXH_DISPATCH_AVX2 1
#define XXH_DISPATCH_AVX512 1
#define XXH_TARGET_AVX2 __attribute__((target("avx2")))
#define XXH_TARGET_AVX512 __attribute__((target("avx512f")))
#include <xxhash.h>

namespace mwc {
namespace {

// Returns the xxHash state of type S in s (its bytes: both are plain data).
template <class S>
S* state(unsigned char* s) { return std::launder(reinterpret_cast<S*>(s)); }
template <class S>
const S* state(const unsigned char* s) { return std::launder(reinterpret_cast<const S*>(s)); }

// XXH3_64bits_update through each kernel: the same hash, 16, 32 or 64
// bytes a step.
void update_sse2(XXH3_state_t* s, const void* in, size_t n) {
  XXH3_update(s, static_cast<const xxh_u8*>(in), n, XXH3_accumulate_512_sse2, XXH3_scrambleAcc_sse2);
}
XXH_TARGET_AVX2 void update_avx2(XXH3_state_t* s, const void* in, size_t n) {
  XXH3_update(s, static_cast<const xxh_u8*>(in), n, XXH3_accumulate_512_avx2, XXH3_scrambleAcc_avx2);
}
XXH_TARGET_AVX512 void update_avx512(XXH3_state_t* s, const void* in, size_t n) {
  XXH3_update(s, static_cast<const xxh_u8*>(in), n, XXH3_accumulate_512_avx512,
              XXH3_scrambleAcc_avx512);
}

// Returns the fastest kernel this processor runs (libgcc's check counts a
// vector unit only where the kernel saves its registers).
Xxh3Kernel fastest() {
  static const Xxh3Kernel k = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? Xxh3Kernel::avx512
           : __builtin_cpu_supports("avx2")  ? Xxh3Kernel::avx2
                                             : Xxh3Kernel::sse2;
  }();
  return k;
}

}  // namespace

std::vector<Xxh3Kernel> xxh3_kernels_here() {
  std::vector<Xxh3Kernel> ks;
  for (int k = 0; k <= static_cast<int>(fastest()); ++k) ks.push_back(static_cast<Xxh3Kernel>(k));
  return ks;
}

std::string_view kernel_name(Xxh3Kernel k) {
  return k == Xxh3Kernel::avx512 ? "avx512" : k == Xxh3Kernel::avx2 ? "avx2" : "sse2";
}

Checksum::Checksum(Hash hash) : hash_(hash), kernel_(fastest()) {
  static_assert(sizeof(XXH64_state_t) <= kStateSize && alignof(XXH64_state_t) <= alignof(Checksum) &&
                    sizeof(XXH3_state_t) <= kStateSize && alignof(XXH3_state_t) <= alignof(Checksum),
                "Checksum::state_ holds an XXH64_state_t or an XXH3_state_t");
  if (hash == Hash::xxh64) {
    ::new (static_cast<void*>(state_)) XXH64_state_t;
    XXH64_reset(state<XXH64_state_t>(state_), 0);
  } else {
    ::new (static_cast<void*>(state_)) XXH3_state_t;
    XXH3_INITSTATE(state<XXH3_state_t>(state_));
    XXH3_64bits_reset(state<XXH3_state_t>(state_));
  }
}

Checksum::Checksum(Xxh3Kernel k) : Checksum(Hash::xxh3) { kernel_ = k; }

void Checksum::update(std::span<const uint8_t> bytes) {
  // An empty span may have no data pointer, which xxHash takes as an error.
  if (bytes.empty()) return;
  if (hash_ == Hash::xxh64) {
    XXH64_update(state<XXH64_state_t>(state_), bytes.data(), bytes.size());
    return;
  }
  XXH3_state_t* const s = state<XXH3_state_t>(state_);
  switch (kernel_) {
    case Xxh3Kernel::avx512: return update_avx512(s, bytes.data(), bytes.size());
    case Xxh3Kernel::avx2: return update_avx2(s, bytes.data(), bytes.size());
    case Xxh3Kernel::sse2: return update_sse2(s, bytes.data(), bytes.size());
  }
}

uint64_t Checksum::digest() const {
  return hash_ == Hash::xxh64 ? XXH64_digest(state<XXH64_state_t>(state_))
                              : XXH3_64bits_digest(state<XXH3_state_t>(state_));
}

uint64_t checksum(std::span<const uint8_t> bytes, Hash hash) {
  Checksum c(hash);
  c.update(bytes);
  return c.digest();
}

}  // namespace mwc
