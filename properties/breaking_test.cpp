// Breaking any one rule template (refmodel/broken_rules.hpp) makes a
// property fail: the model with the broken template diverges from the
// model without it on some generated sequence, shrunk to a short one.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "properties/gen.hpp"
#include "refmodel/broken_rules.hpp"
#include "refmodel/model.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::props {
namespace {
using B = Broken<Concrete>;

std::vector<Outcome> outcomes(const Trace& t, const Profile& p, int broken) {
  BreakRule<B> guard(broken);
  Model m(p);
  m.reset(t.caps);
  std::vector<Outcome> out;
  for (const Op& op : t.ops) {
    out.push_back(m.step(op));
    if (const char* why = m.check_invariants()) {  // a broken invariant shows as an outcome
      out.back().rule = Rule::handle_live;
      out.back().ret = Result::kCRASH;
      (void)why;
    }
  }
  return out;
}

TEST(BreakingARule, EveryTemplateMakesAPropertyFail) {
  for (int f = 0; f < kRuleFnCount; ++f) {
    const auto same = [f] {
      const Profile p = profile(static_cast<ProfileId>(*rc::gen::inRange(0, kProfileCount)));
      const Trace t = with_prologue(*gen_ops());
      RC_ASSERT(outcomes(t, p, -1) == outcomes(t, p, f));
    };
    rc::detail::TestParams params;
    params.seed = 7;
    params.maxSuccess = 1000;
    const auto r = rc::detail::checkTestable(same, rc::detail::TestMetadata{}, params);
    ASSERT_TRUE(r.is<rc::detail::FailureResult>()) << "breaking " << kRuleFnNames[f] << " went unnoticed";
    const auto& fail = r.get<rc::detail::FailureResult>();
    std::cout << "breaking " << kRuleFnNames[f] << ": found after " << fail.numSuccess
              << " passing cases; shrunk to " << fail.counterExample.back().second << "\n";
  }
}

}  // namespace
}  // namespace mwc::props
