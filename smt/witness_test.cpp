#include "smt/witness.hpp"

#include <gtest/gtest.h>

#include "compare/run.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::smt {
namespace {

TEST(Witness, OneForEveryPairOfProfilesAndKnobTheyDifferOn) {
  size_t differences = 0;
  for (const KnobDesc& k : knob_descs())
    for (int a = 0; a < kProfileCount; ++a)
      for (int b = a + 1; b < kProfileCount; ++b) differences += k.profile_value[a] != k.profile_value[b];
  const auto ws = distinguishing_witnesses();
  EXPECT_EQ(ws.size(), differences);
  for (const Witness& w : ws) {
    ASSERT_FALSE(w.trace.ops.empty()) << w.file;
    EXPECT_TRUE(first_divergence(w.trace, profile(w.a), profile(w.b))) << w.file;
    EXPECT_TRUE(knob_alone_diverges(w.trace, w.a, w.b, w.knob)) << w.file;
    // The printed trace parses back to itself (it is what --witness-dir writes).
    auto r = parse_text(print_text(w.trace));
    ASSERT_TRUE(std::holds_alternative<Trace>(r)) << w.file;
    EXPECT_EQ(std::get<Trace>(r), w.trace) << w.file;
  }
}

TEST(Witness, SameTracesEveryTime) {
  const auto a = distinguishing_witnesses(), b = distinguishing_witnesses();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(print_text(a[i].trace), print_text(b[i].trace));
}

TEST(Witness, CounterexampleTracesShowTheForbiddenAccessGranted) {
  for (const auto& c : counterexample_traces()) {
    ASSERT_FALSE(c.trace.ops.empty()) << c.file;
    const auto out = run_model(c.trace, profile(c.profile));
    // The last op is the access the theorem forbids, and it succeeds.
    EXPECT_EQ(out.back().wc, WcStatus::kIBV_WC_SUCCESS) << c.file;
    EXPECT_EQ(out.back().rule, Rule::remote_ok) << c.file;
  }
}

}  // namespace
}  // namespace mwc::smt
