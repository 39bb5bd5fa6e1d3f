#include "smt/theorems.hpp"

#include <gtest/gtest.h>

#include "refmodel/broken_rules.hpp"
#include "smt/domain.hpp"

namespace mwc::smt {
namespace {

TEST(Theorems, EveryTheoremHasItsExpectedVerdict) {
  const auto ts = theorems<Sym>();
  ASSERT_GE(ts.size(), 15u);
  for (const Theorem& t : ts) {
    const Verdict v = prove(t);
    EXPECT_TRUE(v.as_expected()) << t.name << ": " << status_name(v.status) << " " << v.values;
    EXPECT_FALSE(t.rules.empty()) << t.name;
  }
}

TEST(Theorems, KnownCounterexamplesNameTheirValues) {
  for (const Theorem& t : theorems<Sym>()) {
    if (t.known.empty()) continue;
    const Verdict v = prove(t);
    EXPECT_EQ(v.status, Status::Counterexample) << t.name;
    EXPECT_NE(v.values.find("=0x"), std::string::npos) << t.name << ": " << v.values;
  }
}

// A fiftieth of kProofBudget: a few seconds' work for Z3 here.
constexpr unsigned kBrokenBudget = kProofBudget / 50;

// Breaking any one rule template makes at least one theorem fail with a
// counterexample that names values.
TEST(Theorems, BreakingAnyRuleTemplateRefutesATheorem) {
  using B = Broken<Sym>;
  for (int f = 0; f < kRuleFnCount; ++f) {
    BreakRule<B> broken(f);
    std::string refuted;
    for (const Theorem& t : theorems<B>()) {
      // A small budget: what matters is a counterexample, which Z3 finds
      // fast; a broken proof may take long to come out Unknown.
      const Verdict v = prove(t, kBrokenBudget);
      if (v.status != Status::Counterexample || !t.known.empty()) continue;
      if (!t.exists) {
        EXPECT_FALSE(v.values.empty()) << t.name;
      }
      refuted += " " + t.name;
    }
    EXPECT_FALSE(refuted.empty()) << "breaking " << kRuleFnNames[f] << " refutes no theorem";
    std::cout << "breaking " << kRuleFnNames[f] << " refutes" << refuted << "\n";
  }
}

}  // namespace
}  // namespace mwc::smt
