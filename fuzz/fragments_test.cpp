#include "fuzz/fragments.hpp"

#include <gtest/gtest.h>

#include "fuzz/input.hpp"
#include "refmodel/model.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::fuzz {
namespace {

Trace empty() {
  Trace t;
  t.caps = kFuzzCaps;
  return t;
}

// From nothing, a fragment makes what it needs and runs its scenario: a
// bind that succeeds in one in twenty (each of five objects made, and the
// bind's own dozen checks passed), now and then followed by an access
// through the window that its range decides (granted or refused).
TEST(Fragments, FromNothingBindThenAccessReachesTheRangeCheck) {
  int binds = 0, ranged = 0;
  Rng rng(1);
  for (int i = 0; i < 500; ++i) {
    Trace t = empty();
    t.ops = fragment(t, 0, 64, rng);
    Model m(profile(ProfileId::verbs));
    m.reset(t.caps);
    bool bound = false;
    for (const Op& op : t.ops) {
      const Outcome o = m.step(op);
      bound = bound || o.rule == Rule::bind_ok;
      if (bound && (o.rule == Rule::remote_range || o.rule == Rule::remote_ok)) {
        ++ranged;
        break;
      }
    }
    binds += bound;
  }
  EXPECT_GT(binds, 500 / 20);
  EXPECT_GT(ranged, 2);
}

// A fragment is whole valid ops inside the trace's caps, within room, and
// survives the trip through bytes; the same Rng state gives the same one.
TEST(Fragments, AreValidFuzzInputs) {
  Rng rng(2);
  Trace t = empty();
  for (int i = 0; i < 200; ++i) {
    const size_t at = rng.below(t.ops.size() + 1);
    Rng again = rng;
    auto ops = fragment(t, at, 6, rng);
    EXPECT_EQ(ops, fragment(t, at, 6, again)) << i;
    EXPECT_LE(ops.size(), 6u);
    t.ops.insert(t.ops.begin() + static_cast<std::ptrdiff_t>(at), ops.begin(), ops.end());
    if (t.ops.size() > 40) t.ops.resize(20);
    EXPECT_EQ(input_trace(input_bytes(t)), t) << print_text(t);
  }
}

}  // namespace
}  // namespace mwc::fuzz
