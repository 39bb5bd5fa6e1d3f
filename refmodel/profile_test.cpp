#include "refmodel/profile.hpp"

#include <gtest/gtest.h>

namespace mwc {
namespace {

TEST(Profiles, FiveProfilesAndAtLeastTenKnobs) {
  EXPECT_EQ(profile_descs().size(), 5u);
  EXPECT_GE(knob_descs().size(), 10u);
}

TEST(Profiles, EveryKnobSplitsSomeTwoProfilesAndCitesEveryAlternative) {
  for (const auto& k : knob_descs()) {
    bool split = false;
    for (int p = 1; p < kProfileCount; ++p) split = split || k.profile_value[p] != k.profile_value[0];
    EXPECT_TRUE(split) << k.name << " is the same in every profile";
    for (const auto& a : k.alts) EXPECT_FALSE(a.source.empty()) << k.name << "." << a.name;
    for (const uint8_t v : k.profile_value) EXPECT_LT(v, k.alts.size()) << k.name;
  }
}

TEST(Profiles, EveryAlternativeIsSomeProfiles) {
  for (const auto& k : knob_descs())
    for (size_t a = 0; a < k.alts.size(); ++a) {
      bool used = false;
      for (const uint8_t v : k.profile_value) used = used || v == a;
      EXPECT_TRUE(used) << k.name << "=" << k.alts[a].name << " is no profile's";
    }
}

TEST(Profiles, KnobsCanBeAdjusted) {
  std::string err;
  auto p = parse_profile("rxe+remote_range=window+mw_access=remote_only", err);
  ASSERT_TRUE(p) << err;
  EXPECT_EQ((*p)[Knob::remote_range], alt::remote_range::window);
  EXPECT_EQ((*p)[Knob::mw_access], alt::mw_access::remote_only);
  EXPECT_EQ((*p)[Knob::dereg_bound], alt::dereg_bound::einval);
  EXPECT_FALSE(parse_profile("nosuch", err));
  EXPECT_FALSE(parse_profile("rxe+nosuch=1", err));
  EXPECT_FALSE(parse_profile("rxe+remote_range=nosuch", err));
  EXPECT_FALSE(parse_profile("rxe+remote_range", err));
}

}  // namespace
}  // namespace mwc
