#include "compare/annotate.hpp"

#include <gtest/gtest.h>

#include "compare/run.hpp"
#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

TEST(Annotate, OutcomesCommentsInPlaceAndAMismatchUnderItsOp) {
  const Trace t = testing::parse_or_fail(
      "# setup\nbuf b0 len=4096 => OK\nalloc_pd p0 => EINVAL  # wrong on purpose\n# end\n");
  const auto out = run_model(t, profile(ProfileId::verbs));
  EXPECT_EQ(annotate(t, out, static_cast<int>(ProfileId::verbs), "profile:verbs"),
            "# setup\nbuf b0 len=4096 => OK\nalloc_pd p0 => OK  # wrong on purpose\n"
            "# ^ MISMATCH under profile:verbs: expected EINVAL (rule " +
                std::string(rule_desc(out[1].rule).id) + ")\n# end\n");
}

}  // namespace
}  // namespace mwc
