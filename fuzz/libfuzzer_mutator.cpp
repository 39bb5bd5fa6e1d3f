// libFuzzer's hooks for the structure-aware mutator (fuzz builds only):
// most mutations edit the trace's ops; one in eight falls back to
// libFuzzer's own byte mutation, which reaches what the op table cannot
// (odd headers, truncated records).
#include <cstring>

#include "fuzz/input.hpp"
#include "fuzz/mutator.hpp"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {
size_t put(const std::vector<uint8_t>& bytes, uint8_t* out, size_t max_size) {
  if (bytes.size() > max_size) return 0;
  std::memcpy(out, bytes.data(), bytes.size());
  return bytes.size();
}
}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  using namespace mwc::fuzz;
  Rng rng(seed);
  if (rng.chance(1, 8)) return LLVMFuzzerMutate(data, size, max_size);
  mwc::Trace t = input_trace({data, size});
  mutate(t, rng, kFuzzMaxOps);
  const size_t n = put(input_bytes(t, max_size), data, max_size);
  return n ? n : LLVMFuzzerMutate(data, size, max_size);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* d1, size_t s1, const uint8_t* d2,
                                            size_t s2, uint8_t* out, size_t max_size,
                                            unsigned int seed) {
  using namespace mwc::fuzz;
  Rng rng(seed);
  const mwc::Trace t = crossover(input_trace({d1, s1}), input_trace({d2, s2}), rng, kFuzzMaxOps);
  return put(input_bytes(t, max_size), out, max_size);
}
