#include "compare/expectations.hpp"

#include <gtest/gtest.h>

#include "compare/run.hpp"
#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

TEST(CheckExpectations, EachOpThatFailsItsColumnsExpectationOnce) {
  const Trace t = testing::parse_or_fail(
      "buf b0 len=4096 => OK\nalloc_pd p0 => OK\nreg_mr m0 pd=p0 addr=b0 len=8192 => EFAULT; det: EINVAL\n"
      "dealloc_pd p0\n");
  const int verbs = static_cast<int>(ProfileId::verbs), det = static_cast<int>(ProfileId::det);
  auto out = run_model(t, profile(ProfileId::verbs));
  std::vector<uint32_t> checked;
  const auto none = check_expectations("a.mwt", t, out, verbs, &checked);
  EXPECT_TRUE(none.empty()) << none[0].observed;
  EXPECT_EQ(checked, (std::vector<uint32_t>{0, 1, 2}));  // dealloc_pd expects nothing
  out[2].ret = Result::kOK;
  const auto bad = check_expectations("a.mwt", t, out, verbs);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].op, 2u);
  EXPECT_EQ(bad[0].where, "a.mwt:3");
  EXPECT_EQ(bad[0].expected, "EFAULT");
  EXPECT_EQ(mismatch_line(bad[0], "profile:verbs"),
            "a.mwt:3: mismatch under profile:verbs: reg_mr m0 pd=p0 addr=b0 len=8192 => OK, expected EFAULT (rule " +
                bad[0].rule + ")\n");
  // The det column expects its own outcome.
  EXPECT_EQ(check_expectations("a.mwt", t, out, det)[0].expected, "EINVAL");
}

}  // namespace
}  // namespace mwc
