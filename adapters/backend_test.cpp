#include "adapters/backend.hpp"

#include <gtest/gtest.h>

#include "refmodel/mutant.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc {
namespace {

TEST(Backend, SpecsNameProfilesAndKnobAdjustments) {
  std::string err;
  auto a = make_backend("profile:rxe", err);
  ASSERT_TRUE(a) << err;
  EXPECT_EQ(a->name(), "profile:rxe");
  EXPECT_EQ(a->expectation_column(), static_cast<int>(ProfileId::rxe));
  auto b = make_backend("verbs+remote_range=mr_only", err);
  ASSERT_TRUE(b) << err;
  EXPECT_EQ(b->expectation_column(), -1);
  // A driver's later release is no column either: the rxe clauses are 6.1's.
  auto c = make_backend("profile:rxe@6.12", err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->expectation_column(), -1);
  EXPECT_FALSE(make_backend("nic:mlx5_0", err));
  EXPECT_NE(err.find("unknown backend"), std::string::npos);
  EXPECT_FALSE(make_backend("profile:nosuch", err));
  // No such device on this machine (a build machine has none at all).
  EXPECT_FALSE(make_backend("device:no_such_nic9", err));
  EXPECT_NE(err.find("no ibverbs device named 'no_such_nic9'"), std::string::npos) << err;
  EXPECT_FALSE(make_backend("device:softroce:6.12", err));
  EXPECT_NE(err.find("inside its VM"), std::string::npos) << err;
  DeviceConfig bad;
  bad.inject = {"meltdown:001_resources_basic"};
  EXPECT_FALSE(make_backend("device:rxe0", err, bad));
  EXPECT_NE(err.find("bad fault"), std::string::npos) << err;
}

TEST(Backend, RunsAWholeTraceFromAFreshState) {
  std::string err;
  auto b = make_backend("verbs", err);
  const Trace t = std::get<Trace>(parse_text("alloc_pd p0\nalloc_pd p0\ndealloc_pd p0\n"));
  std::vector<Outcome> out;
  b->run(t, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].ret, Result::kSKIP);
  b->run(t, out);  // again: same outcomes, nothing left over
  EXPECT_EQ(out[0].ret, Result::kOK);
  EXPECT_EQ(out[1].ret, Result::kSKIP);
}

}  // namespace
}  // namespace mwc

namespace mwc {
namespace {

TEST(Backend, MutantsRunOnTheProfileTheyCorrupt) {
  std::string err;
  for (const auto& d : mutant_descs()) {
    auto b = make_backend("mutant:" + std::string(d.name), err);
    ASSERT_TRUE(b) << err;
    EXPECT_EQ(b->name(), "mutant:" + std::string(d.name));
    EXPECT_EQ(b->expectation_column(), static_cast<int>(d.base));
    ASSERT_TRUE(b->profile());
    EXPECT_EQ(b->profile()->name, profile_descs()[static_cast<int>(d.base)].name);
  }
  EXPECT_FALSE(make_backend("mutant:nosuch", err));
  EXPECT_NE(err.find("key_not_advanced"), std::string::npos);  // lists the mutants
}

}  // namespace
}  // namespace mwc
