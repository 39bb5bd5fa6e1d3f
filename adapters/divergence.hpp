// Where two backends first disagree on a trace, and whether a knob explains
// it (the two follow profiles that set a knob differently, and an op up to
// there consulted it: a documented ambiguity, not a bug).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "adapters/backend.hpp"
#include "compare/divergence.hpp"

namespace mwc {

// Returns the knobs (bit per Knob) two backends set differently; none when
// either follows no known profile (a device: no knob explains its outcomes).
uint32_t differing_knobs(const Backend& a, const Backend& b);

// Runs `t` on both backends (outcomes left in oa, ob) and returns their first
// divergence, or nothing when every outcome agrees.
std::optional<Divergence> first_divergence(const Trace& t, Backend& a, Backend& b,
                                           std::vector<Outcome>& oa, std::vector<Outcome>& ob);

}  // namespace mwc
