// Where two runs of one trace first disagree: the one place two outcome
// streams are compared.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "refmodel/outcome.hpp"

namespace mwc {

struct Divergence {
  size_t op = 0;           // index of the first op whose outcomes differ
  Outcome a, b;            // the two outcomes there
  bool explained = false;  // a knob the two set differently was consulted
};

// What an op one side did not run (NOTRUN: a device died before it) is.
enum class NotRun : uint8_t {
  skipped,   // not compared: it says nothing of the device (judging, shrinking)
  compared,  // a difference like any other (diff: the two did not do the same)
};

// Returns the first divergence of two outcome streams of one trace, where
// `differ` holds the knobs (bit per Knob) the two runs' profiles set
// differently.
std::optional<Divergence> first_divergence(const std::vector<Outcome>& oa, const std::vector<Outcome>& ob,
                                           uint32_t differ, NotRun notrun = NotRun::skipped);

}  // namespace mwc
