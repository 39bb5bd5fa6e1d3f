#include "findings/yardstick.hpp"

#include <gtest/gtest.h>

#include "findings/test_corpus.hpp"
#include "compare/run.hpp"

namespace mwc::findings {
namespace {

using testing::corpus;

// Returns the yardstick fitted to the device outcomes `device` of trace t.
Yardstick fitted(const Trace& t, const std::vector<Outcome>& device) {
  return fit_yardstick({Observed{&t, &device}}, ProfileId::ibta);
}

// Every knob's print says what the yardstick does: a reading adopted is
// the one it follows, and a knob that follows none keeps the base's.
void expect_consistent(const Yardstick& y) {
  const Profile base = profile(y.base);
  for (int k = 0; k < kKnobCount; ++k) {
    const KnobPrint& kp = y.knobs[k];
    const auto knob = static_cast<Knob>(k);
    const std::string name(knob_descs()[k].name);
    EXPECT_EQ(kp.adopted, y.profile[knob] != base[knob]) << name;
    if (kp.adopted) {
      EXPECT_EQ(kp.follows, y.profile[knob]) << name << ": " << kp.verdict;
    }
    if (kp.follows < 0) {
      EXPECT_EQ(y.profile[knob], base[knob]) << name << ": " << kp.verdict;
    }
  }
}

TEST(Yardstick, AReadingThatReachesFurthestIsFollowedInBothPasses) {
  // rxe's dereg_bound (EINVAL while a window is bound), then a last op no
  // alternative of any knob predicts (as rxe's missing rereg_mr and its
  // crashes do): einval explains the device furthest into the trace,
  // though no alternative matches it to its end. The second pass over
  // the knobs, run with einval already adopted, must say so too, not
  // "none" beside a yardstick that follows einval.
  const Trace t = corpus({"104_knob_dereg_bound.mwt"})[0].trace;
  std::vector<Outcome> device = run_model(t, profile(ProfileId::rxe));
  device.back() = Outcome{};
  device.back().ret = Result::kEIO;
  const Yardstick y = fitted(t, device);
  const KnobPrint& kp = y.knobs[static_cast<int>(Knob::dereg_bound)];
  EXPECT_EQ(kp.verdict, "like einval (0/1 telling traces, but furthest into them)");
  EXPECT_EQ(kp.follows, alt::dereg_bound::einval);
  EXPECT_TRUE(kp.adopted);
  EXPECT_EQ(y.profile[Knob::dereg_bound], alt::dereg_bound::einval);
  expect_consistent(y);
}

TEST(Yardstick, AKnobNoAlternativeExplainsKeepsTheBase) {
  // The device answers the dereg_bound ops with what no alternative says:
  // the knob follows none, and the yardstick keeps ibta's ebusy.
  const Trace t = corpus({"104_knob_dereg_bound.mwt"})[0].trace;
  std::vector<Outcome> device = run_model(t, profile(ProfileId::ibta));
  for (size_t i = 0; i < t.ops.size(); ++i)
    if (t.ops[i].code == OpCode::rereg_mr) device[i].ret = Result::kEIO;
  const Yardstick y = fitted(t, device);
  const KnobPrint& kp = y.knobs[static_cast<int>(Knob::dereg_bound)];
  EXPECT_EQ(kp.verdict, "none");
  EXPECT_FALSE(kp.adopted);
  EXPECT_EQ(y.profile[Knob::dereg_bound], alt::dereg_bound::ebusy);
  expect_consistent(y);
}

TEST(Yardstick, EveryPrintOfADriverProfileSaysWhatTheYardstickDoes) {
  const auto c = corpus({"101_knob_bind_errors.mwt", "102_knob_zero_length_type2.mwt", "103_knob_mw_access.mwt",
                         "104_knob_dereg_bound.mwt", "105_knob_failed_bind.mwt", "106_knob_type2_invalidator.mwt",
                         "107_knob_type1_bind_wr.mwt", "108_knob_rkey_update.mwt", "109_knob_remote_range.mwt"});
  for (const ProfileId p : {ProfileId::rxe, ProfileId::mlx5, ProfileId::det}) {
    std::vector<std::vector<Outcome>> outs;
    outs.reserve(c.size());
    std::vector<Observed> runs;
    for (const auto& ct : c) outs.push_back(run_model(ct.trace, profile(p)));
    for (size_t i = 0; i < c.size(); ++i) runs.push_back({&c[i].trace, &outs[i]});
    SCOPED_TRACE(std::string(profile_descs()[static_cast<int>(p)].name));
    expect_consistent(fit_yardstick(runs, ProfileId::ibta));
  }
}

}  // namespace
}  // namespace mwc::findings
