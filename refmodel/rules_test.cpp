#include "refmodel/rules.hpp"

#include <set>

#include <gtest/gtest.h>

namespace mwc {
namespace {
using C = Concrete;
constexpr uint64_t kMax = ~uint64_t{0};

TEST(Rules, IdsAreUniqueAndCited) {
  std::set<std::string_view> ids;
  for (const auto& r : rule_descs()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_FALSE(r.source.empty()) << r.id;
  }
}

TEST(Rules, RangeWithinHandlesEdgesAndWrapAround) {
  EXPECT_TRUE(rules::range_within<C>(100, 10, 100, 10));    // exact fit
  EXPECT_FALSE(rules::range_within<C>(100, 11, 100, 10));   // one byte over
  EXPECT_FALSE(rules::range_within<C>(99, 1, 100, 10));     // one byte under
  EXPECT_TRUE(rules::range_within<C>(110, 0, 100, 10));     // empty range at the end
  EXPECT_FALSE(rules::range_within<C>(kMax - 4, 10, 0, kMax));  // would wrap past 2^64
  EXPECT_FALSE(rules::range_within<C>(5, kMax, 0, 100));    // huge length
  EXPECT_TRUE(rules::range_within<C>(kMax - 9, 10, kMax - 9, 10));
}

TEST(Rules, MrAccessNeedsLocalWriteForRemoteWriteAndAtomic) {
  EXPECT_TRUE(rules::mr_access_valid<C>(acc::REMOTE_READ));
  EXPECT_FALSE(rules::mr_access_valid<C>(acc::REMOTE_WRITE));
  EXPECT_FALSE(rules::mr_access_valid<C>(acc::REMOTE_ATOMIC | acc::REMOTE_READ));
  EXPECT_TRUE(rules::mr_access_valid<C>(acc::REMOTE_ATOMIC | acc::LOCAL_WRITE));
}

TEST(Rules, WindowRightsAreBackedByTheMr) {
  EXPECT_FALSE(rules::mw_write_backed<C>(acc::REMOTE_WRITE, acc::MW_BIND));
  EXPECT_TRUE(rules::mw_write_backed<C>(acc::REMOTE_READ, acc::MW_BIND));
  EXPECT_TRUE(rules::mw_read_backed<C>(acc::REMOTE_READ, 0, alt::local_read::implicit));
  EXPECT_FALSE(rules::mw_read_backed<C>(acc::REMOTE_READ, 0, alt::local_read::required));
  EXPECT_TRUE(rules::mw_read_backed<C>(acc::REMOTE_READ, acc::LOCAL_READ, alt::local_read::required));
}

TEST(Rules, WindowAccessFlagsPerKnob) {
  EXPECT_FALSE(rules::mw_access_allowed<C>(acc::LOCAL_WRITE, alt::mw_access::remote_only));
  EXPECT_TRUE(rules::mw_access_allowed<C>(acc::LOCAL_WRITE, alt::mw_access::any));
  EXPECT_TRUE(rules::mw_access_allowed<C>(0, alt::mw_access::remote_only));
  EXPECT_FALSE(rules::mw_access_allowed<C>(0, alt::mw_access::zero_rejected));
  EXPECT_FALSE(rules::mw_access_allowed<C>(acc::ZERO_BASED, alt::mw_access::zero_rejected));
  EXPECT_TRUE(rules::mw_access_allowed<C>(acc::REMOTE_READ, alt::mw_access::zero_rejected));
}

TEST(Rules, RemoteRangeThroughZeroBasedAndVirtualWindows) {
  // Window [1000, 1100) inside MR [0x100, +0x1000).
  const auto ok = [](uint64_t a, uint64_t n, bool zb, uint8_t knob) {
    return rules::remote_range_ok<C>(a, n, zb, 1000, 100, 0x100, 0x1000, knob);
  };
  EXPECT_TRUE(ok(1000, 100, false, alt::remote_range::window));
  EXPECT_FALSE(ok(1001, 100, false, alt::remote_range::window));
  EXPECT_TRUE(ok(1001, 100, false, alt::remote_range::mr_only));  // inside the MR only
  EXPECT_TRUE(ok(0, 100, true, alt::remote_range::window));
  EXPECT_FALSE(ok(1, 100, true, alt::remote_range::window));
  EXPECT_FALSE(ok(kMax, 2, true, alt::remote_range::window));  // offset wraps
}

TEST(Rules, IncRkeyAdvancesTheKeyByteAndWraps) {
  EXPECT_EQ(rules::inc_rkey<C>(0x12345601), 0x12345602u);
  EXPECT_EQ(rules::inc_rkey<C>(0x123456ff), 0x12345600u);
  EXPECT_EQ(rules::with_key<C>(0x123456ff, 0x1ab), 0x123456abu);
}

TEST(Rules, AtomicsNeedEightByteAlignment) {
  EXPECT_TRUE(rules::atomic_aligned<C>(0x1000));
  EXPECT_FALSE(rules::atomic_aligned<C>(0x1004));
}

TEST(Rules, TheBindAccessChainDecidesInOneOrder) {
  // The order the model refuses in and the theorems conjoin (IBTA: the
  // window's own flags, then C10-73, C10-74, then the read right).
  std::vector<Rule> order;
  for (const auto& c : rules::kBindAccessChain<C>) order.push_back(c.rule);
  EXPECT_EQ(order, (std::vector<Rule>{Rule::bind_mw_access, Rule::bind_mr_mw_bind, Rule::bind_local_write,
                                      Rule::bind_local_read}));
  // A window asking for REMOTE_WRITE over an MR with neither MW_BIND nor
  // LOCAL_WRITE fails two links; the first decides.
  const auto first_failing = [](uint64_t mw, uint64_t mr) {
    for (const auto& c : rules::kBindAccessChain<C>)
      if (!c.holds(mw, mr, c.uses_knob ? profile(ProfileId::verbs)[c.knob] : 0)) return c.rule;
    return Rule::bind_ok;
  };
  EXPECT_EQ(first_failing(acc::REMOTE_WRITE, acc::REMOTE_READ), Rule::bind_mr_mw_bind);
  EXPECT_EQ(first_failing(acc::REMOTE_WRITE, acc::REMOTE_READ | acc::MW_BIND), Rule::bind_local_write);
  EXPECT_EQ(first_failing(acc::REMOTE_READ, acc::MW_BIND | acc::LOCAL_WRITE), Rule::bind_ok);
}

}  // namespace
}  // namespace mwc
