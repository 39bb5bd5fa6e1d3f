#include "refmodel/profile.hpp"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace mwc {
namespace {

TEST(Profiles, FiveProfilesAndAtLeastTenKnobs) {
  EXPECT_EQ(profile_descs().size(), 5u);
  EXPECT_GE(knob_descs().size(), 10u);
}

// Returns the alternative each profile, then each driver's later release
// (rxe@6.12), takes for knob k.
std::vector<uint8_t> takers(Knob k) {
  std::vector<uint8_t> v;
  for (const Profile& p : described_profiles()) v.push_back(p[k]);
  return v;
}

TEST(Profiles, EveryKnobSplitsSomeTwoProfilesAndCitesEveryAlternative) {
  for (int i = 0; i < kKnobCount; ++i) {
    const auto& k = knob_descs()[i];
    const std::vector<uint8_t> v = takers(static_cast<Knob>(i));
    EXPECT_NE(std::count(v.begin(), v.end(), v[0]), static_cast<long>(v.size()))
        << k.name << " is the same in every profile and release";
    for (const auto& a : k.alts) EXPECT_FALSE(a.source.empty()) << k.name << "." << a.name;
    for (const uint8_t x : v) EXPECT_LT(x, k.alts.size()) << k.name;
  }
}

TEST(Profiles, EveryAlternativeIsSomeProfiles) {
  for (int i = 0; i < kKnobCount; ++i) {
    const auto& k = knob_descs()[i];
    const std::vector<uint8_t> v = takers(static_cast<Knob>(i));
    for (size_t a = 0; a < k.alts.size(); ++a)
      EXPECT_NE(std::find(v.begin(), v.end(), a), v.end())
          << k.name << "=" << k.alts[a].name << " is no profile's or release's";
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
  EXPECT_EQ((*now)[Knob::failed_request_status], alt::failed_request_status::flushed);
  Profile then = profile(ProfileId::rxe);
  then.v[static_cast<int>(Knob::bind_qp_pd)] = alt::bind_qp_pd::always;
  then.v[static_cast<int>(Knob::failed_request_status)] = alt::failed_request_status::flushed;
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
