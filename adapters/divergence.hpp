// Where two backends first disagree on a trace, and whether a knob explains
// it (the two follow profiles that set a knob differently, and an op up to
// there consulted it: a documented ambiguity, not a bug).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "adapters/backend.hpp"

namespace mwc {

struct Divergence {
  size_t op = 0;      // index of the first op whose outcomes differ
  Outcome a, b;       // the two outcomes there
  bool explained = false;  // a knob the two set differently was consulted
};

// Returns the knobs (bit per Knob) two backends set differently; none when
// either follows no known profile (a device: no knob explains its outcomes).
uint32_t differing_knobs(const Backend& a, const Backend& b);

// Returns the first divergence of two outcome streams of one trace, where
// `differ` holds the knobs the two backends set differently. Ops either
// side did not run (NOTRUN: a device died before them) are not compared.
// This is the one place where two runs of a trace are compared.
std::optional<Divergence> first_divergence(const std::vector<Outcome>& oa,
                                           const std::vector<Outcome>& ob, uint32_t differ);

// Runs `t` on both backends (outcomes left in oa, ob) and returns their first
// divergence, or nothing when every outcome agrees.
std::optional<Divergence> first_divergence(const Trace& t, Backend& a, Backend& b,
                                           std::vector<Outcome>& oa, std::vector<Outcome>& ob);

}  // namespace mwc
