#include "compare/run.hpp"

#include <gtest/gtest.h>

#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

TEST(RunModel, EveryOpHasItsOutcomeAndAMutantItsBug) {
  const Trace t = testing::parse_or_fail(
      "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
      "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\nbind_mw q0 w0 mr=m0 addr=b0+64 len=128 access=REMOTE_READ\n"
      "peer_read q0 rkey=w0 addr=w0+256 len=8\n");
  const auto ok = run_model(t, profile(ProfileId::verbs));
  ASSERT_EQ(ok.size(), t.ops.size());
  EXPECT_EQ(ok[6].wc, WcStatus::kIBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(run_model(t, profile(ProfileId::verbs), Mutant::range_mr_only)[6].wc, WcStatus::kIBV_WC_SUCCESS);
  // A fresh model each time: the same run twice gives the same outcomes.
  EXPECT_EQ(run_model(t, profile(ProfileId::verbs)), ok);
}

}  // namespace
}  // namespace mwc
