#include "fuzz/rule_coverage.hpp"

#include <gtest/gtest.h>

#include "compare/run.hpp"
#include "fuzz/campaign.hpp"
#include "refmodel/test_util.hpp"

namespace mwc::fuzz {
namespace {

// A deregistration refused while a window is bound: one branch per
// alternative of the knob that decides it.
TEST(RuleCoverage, ABranchIsARuleItsOutcomeAndTheAlternativesItTook) {
  const Trace t = testing::parse_or_fail(R"(buf b0 len=4096
alloc_pd p0
reg_mr m0 pd=p0 addr=b0 len=4096 access=MW_BIND
alloc_mw w0 pd=p0
create_qp q0 pd=p0
bind_mw q0 w0 mr=m0 addr=b0 len=64
dereg_mr m0
)");
  const Profile verbs = profile(ProfileId::verbs), rxe = profile(ProfileId::rxe);
  const Branch v = branch_of(run_model(t, verbs).back(), verbs), r = branch_of(run_model(t, rxe).back(), rxe);
  EXPECT_EQ(branch_rule(v), Rule::mr_dereg_bound);
  EXPECT_EQ(branch_text(v), "EBUSY [dereg_bound=ebusy]");
  EXPECT_EQ(branch_text(r), "EINVAL [dereg_bound=einval]");
  EXPECT_TRUE(is_refusal(v));
  EXPECT_FALSE(is_refusal(branch_of(run_model(t, verbs)[0], verbs)));
  RuleCoverage cov;
  EXPECT_EQ(cov.add(run_model(t, verbs), verbs), 7u);  // every op its own branch
  EXPECT_EQ(cov.add(run_model(t, verbs), verbs), 0u);
  EXPECT_EQ(cov.add(run_model(t, rxe), rxe), 2u);  // the bind (mw_access=any) and the refusal differ
  EXPECT_TRUE(cov.reached(r));
}

// The corpus shows branches under every profile; a table over nothing
// reached lists them as never reached, and those of other alternatives as
// out of reach, naming the profiles that take them.
TEST(RuleCoverage, TheTableSaysWhatWasNeverReachedAndWhatCannotBe) {
  const Profile verbs = profile(ProfileId::verbs);
  EXPECT_GT(corpus_branches(verbs).size(), 50u);
  const std::string table = coverage_table(RuleCoverage{}, std::vector<Profile>{verbs});
  EXPECT_NE(table.find("remote.range"), std::string::npos) << table;
  EXPECT_NE(table.find("never reached: IBV_WC_REM_ACCESS_ERR"), std::string::npos) << table;
  EXPECT_NE(table.find("out of reach: EINVAL [dereg_bound=einval]: only under rxe"), std::string::npos) << table;
  EXPECT_NE(table.find("rule coverage: 0 of "), std::string::npos) << table;
}

// A campaign's branches grow its pool and end in its status; from nothing
// it reaches two thirds of the branches the corpus shows.
TEST(RuleCoverage, ACampaignReachesTheCorpusRefusals) {
  std::string err;
  auto a = make_backend("verbs", err), b = make_backend("mutant:stale_rkey", err);
  CampaignOptions o;
  o.runs = 20000;
  o.keep_going = true;
  CampaignStatus st;
  run_campaign(*a, *b, {}, o, {}, st);
  EXPECT_EQ(st.branches, st.coverage.size());
  EXPECT_EQ(st.refusals, st.coverage.refusals());
  const std::string table = coverage_table(st.coverage, std::vector<Profile>{*a->profile()});
  const size_t at = table.find("rule coverage: ");
  ASSERT_NE(at, std::string::npos);
  unsigned reached = 0, total = 0;
  ASSERT_EQ(std::sscanf(table.c_str() + at, "rule coverage: %u of %u", &reached, &total), 2) << table;
  EXPECT_GT(reached * 3, total * 2) << table;
}

}  // namespace
}  // namespace mwc::fuzz
