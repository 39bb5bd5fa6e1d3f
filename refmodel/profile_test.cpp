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

TEST(Profiles, ADriversLaterReleaseIsItsProfileWithItsRevisions) {
  std::string err;
  const auto now = parse_profile("rxe@6.12", err);
  ASSERT_TRUE(now) << err;
  EXPECT_EQ(now->name, "rxe@6.12");
  EXPECT_EQ((*now)[Knob::bind_qp_pd], alt::bind_qp_pd::always);
  Profile then = profile(ProfileId::rxe);
  then.v[static_cast<int>(Knob::bind_qp_pd)] = alt::bind_qp_pd::always;
  EXPECT_EQ(now->v, then.v) << "a release changes what its revisions name, nothing else";
  const auto adjusted = parse_profile("rxe@6.12+remote_range=window", err);
  ASSERT_TRUE(adjusted) << err;
  EXPECT_EQ((*adjusted)[Knob::bind_qp_pd], alt::bind_qp_pd::always);
  EXPECT_EQ((*adjusted)[Knob::remote_range], alt::remote_range::window);
  EXPECT_FALSE(parse_profile("rxe@6.13", err));
  EXPECT_EQ(err, "profile 'rxe' has no release '6.13' (releases: rxe@6.12)");
  EXPECT_FALSE(parse_profile("verbs@1", err));
  EXPECT_FALSE(parse_profile("rxe@", err));
}

TEST(Profiles, EveryRevisionChangesItsDriversReading) {
  // A revision that restates what its profile already takes says nothing.
  for (const RevisionDesc& r : revision_descs()) {
    const auto& k = knob_descs()[static_cast<int>(r.knob)];
    EXPECT_NE(k.profile_value[static_cast<int>(r.profile)], r.alt) << k.name << " in " << r.release;
    EXPECT_FALSE(r.source.empty());
    EXPECT_EQ(profile_descs()[static_cast<int>(r.profile)].kind, ProfileKind::descriptive);
  }
  std::vector<std::string> names;
  for (const Profile& p : release_profiles()) names.push_back(p.name);
  EXPECT_EQ(names, std::vector<std::string>{"rxe@6.12"});
}

}  // namespace
}  // namespace mwc
