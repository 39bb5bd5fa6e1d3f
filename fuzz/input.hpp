// What a fuzzer's bytes mean: a binary trace (.mwb), with its caps clamped
// so one input never sizes the model's tables beyond kFuzzCapMax; bytes
// without the .mwb header are records under kFuzzCaps. Every byte string is
// a valid trace.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "refmodel/trace.hpp"

namespace mwc::fuzz {

// Caps of header-less inputs and of traces the mutator makes from nothing:
// few objects of each kind, so random handles often name the same one.
inline constexpr Caps kFuzzCaps = {2, 2, 3, 3, 3};
inline constexpr uint32_t kFuzzCapMax = 8;
// Inputs longer than this many ops are cut: a trace that long finds nothing
// a shorter one would not, and costs time.
inline constexpr size_t kFuzzMaxOps = 256;

// Returns the trace a fuzzer input holds.
Trace input_trace(std::span<const uint8_t> bytes);
// Returns a trace's fuzzer input: the .mwb encoding, without expectations
// and comments, cut to at most max_size bytes (whole ops dropped from the end).
std::vector<uint8_t> input_bytes(const Trace& t, size_t max_size = SIZE_MAX);
// Returns t with its caps clamped to kFuzzCapMax and handles reduced into
// them, as input_trace(input_bytes(t)) would; expectations and comments go.
Trace fuzz_form(const Trace& t);

}  // namespace mwc::fuzz
