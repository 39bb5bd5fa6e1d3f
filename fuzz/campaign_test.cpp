#include "fuzz/campaign.hpp"

#include <gtest/gtest.h>

#include "refmodel/mutant.hpp"
#include "refmodel/test_util.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::fuzz {
namespace {

std::unique_ptr<Backend> backend(const std::string& spec) {
  std::string err;
  auto b = make_backend(spec, err);
  EXPECT_TRUE(b) << err;
  return b;
}

std::vector<Trace> corpus() {
  std::vector<Trace> seeds;
  for (const auto& f : testing::corpus_files()) seeds.push_back(testing::parse_or_fail(testing::read_file(f)));
  return seeds;
}

// From the conformance corpus, the fuzzer finds every mutant on the profile
// it corrupts, and its minimized reproducer still shows the bug. (How fast,
// from the corpus and from nothing: `mwcheck power`.)
TEST(Campaign, FindsEveryMutant) {
  const auto seeds = corpus();
  for (const auto& m : mutant_descs()) {
    auto base = backend(std::string(profile_descs()[static_cast<int>(m.base)].name));
    auto mutant = backend("mutant:" + std::string(m.name));
    CampaignOptions o;
    o.runs = 5000;
    CampaignStatus st;
    const auto found = run_campaign(*base, *mutant, seeds, o, {}, st);
    ASSERT_EQ(found.size(), 1u) << m.name << " not found in " << st.runs << " runs";
    const Finding& f = found[0];
    EXPECT_FALSE(f.divergence.explained);
    EXPECT_LE(f.trace.ops.size(), 16u) << m.name << "\n" << print_text(f.trace);
    std::vector<Outcome> oa, ob;
    EXPECT_TRUE(first_divergence(f.trace, *base, *mutant, oa, ob)) << m.name;
  }
}

TEST(Campaign, FindsAMutantFromNothing) {
  auto base = backend("verbs"), mutant = backend("mutant:key_not_advanced");
  CampaignOptions o;
  o.runs = 50000;
  CampaignStatus st;
  const auto found = run_campaign(*base, *mutant, {}, o, {}, st);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_LE(found[0].trace.ops.size(), 6u) << print_text(found[0].trace);
}

TEST(Campaign, SameSeedSameInputsSameFindings) {
  auto a = backend("verbs"), b = backend("mutant:stale_rkey");
  CampaignOptions o;
  o.runs = 3000;
  o.seed = 9;
  o.keep_going = true;
  CampaignStatus s1, s2;
  const auto f1 = run_campaign(*a, *b, {}, o, {}, s1);
  const auto f2 = run_campaign(*a, *b, {}, o, {}, s2);
  ASSERT_EQ(f1.size(), f2.size());
  for (size_t i = 0; i < f1.size(); ++i) {
    EXPECT_EQ(f1[i].run, f2[i].run);
    EXPECT_EQ(f1[i].trace, f2[i].trace);
  }
  EXPECT_EQ(s1.runs, 3000u);
  EXPECT_EQ(s1.pool, s2.pool);
  EXPECT_EQ(s1.rules_covered, s2.rules_covered);
}

// Two profiles disagree only where a knob they set differently was
// consulted: the model's knob accounting is complete.
TEST(Campaign, ProfilesDivergeOnlyWhereAKnobExplainsIt) {
  const char* pairs[][2] = {{"verbs", "rxe"}, {"ibta", "det"}, {"verbs", "mlx5"}};
  for (const auto& p : pairs) {
    auto a = backend(p[0]), b = backend(p[1]);
    CampaignOptions o;
    o.runs = 5000;
    CampaignStatus st;
    const auto found = run_campaign(*a, *b, {}, o, {}, st);
    EXPECT_TRUE(found.empty()) << p[0] << " vs " << p[1] << ":\n"
                               << (found.empty() ? "" : print_text(found[0].trace));
    EXPECT_GT(st.rules_covered, kRuleCount / 3);  // the fuzzer reached well past resource setup
  }
}

}  // namespace
}  // namespace mwc::fuzz
