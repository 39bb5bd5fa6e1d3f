#include "compare/divergence.hpp"

#include <gtest/gtest.h>

namespace mwc {
namespace {

Outcome with(Result r, uint32_t knobs = 0) {
  Outcome o;
  o.ret = r;
  o.knobs = knobs;
  return o;
}

TEST(FirstDivergence, TheFirstOpThatDiffersAndWhetherADifferingKnobWasConsulted) {
  const std::vector<Outcome> a{with(Result::kOK, 1u << 3), with(Result::kOK), with(Result::kEINVAL)};
  std::vector<Outcome> b{with(Result::kOK), with(Result::kOK), with(Result::kEPERM)};
  auto d = first_divergence(a, b, 1u << 3);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op, 2u);
  EXPECT_EQ(d->a.ret, Result::kEINVAL);
  EXPECT_TRUE(d->explained);
  EXPECT_FALSE(first_divergence(a, b, 1u << 4)->explained);
  // An op one side never ran is not compared.
  b[2].ret = Result::kNOTRUN;
  EXPECT_FALSE(first_divergence(a, b, 0));
  EXPECT_FALSE(first_divergence(a, a, 0));
  // ... unless asked: for diff, a device that ran nothing did not do the same.
  ASSERT_TRUE(first_divergence(a, b, 0, NotRun::compared));
  EXPECT_EQ(first_divergence(a, b, 0, NotRun::compared)->op, 2u);
}

}  // namespace
}  // namespace mwc
