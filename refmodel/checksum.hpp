// The checksum of a .mwb file's bytes, seed 0: XXH64 in version 3, XXH3
// (64-bit) from version 4 on. Fed in pieces of any size, it gives what the
// one-shot hash of all of them gives, so streaming writers and readers need
// not hold the file. The hashing is xxHash's own (Debian's libxxhash-dev,
// its header inlined into checksum.cpp: nothing to link, no runtime
// dependency); the state is held by value here without its header, which
// would bring every xxHash name to every includer.
//
// XXH3 reads 32 or 64 bytes a step where the processor has AVX2 or
// AVX-512 (xxHash's own kernels, picked when the process starts, as its
// x86 dispatcher does): summing a file is then a small part of replaying
// it, where XXH64 took about a third of a data-path trace's replay.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace mwc {

enum class Hash : uint8_t { xxh64, xxh3 };

// XXH3's ways of reading its stripes: every one gives the same hash.
enum class Xxh3Kernel : uint8_t { sse2, avx2, avx512 };
// Returns the kernels this processor runs, the fastest last.
std::vector<Xxh3Kernel> xxh3_kernels_here();
// Returns a kernel's name ("sse2", "avx2", "avx512").
std::string_view kernel_name(Xxh3Kernel k);

class alignas(64) Checksum {
 public:
  // The hash given; XXH3 through the fastest kernel this processor runs.
  explicit Checksum(Hash hash);
  // XXH3 through kernel k, which must be one of xxh3_kernels_here() (tests).
  explicit Checksum(Xxh3Kernel k);
  // Adds bytes.
  void update(std::span<const uint8_t> bytes);
  // Returns the hash of every byte added so far.
  uint64_t digest() const;

 private:
  // An XXH64_state_t or an XXH3_state_t (the constructor checks the sizes
  // and alignments).
  static constexpr size_t kStateSize = 576;
  alignas(64) unsigned char state_[kStateSize];
  Hash hash_;
  Xxh3Kernel kernel_ = Xxh3Kernel::sse2;
};

// Returns the hash of bytes.
uint64_t checksum(std::span<const uint8_t> bytes, Hash hash);

}  // namespace mwc
