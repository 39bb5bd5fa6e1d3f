#include "adapters/divergence.hpp"

#include <gtest/gtest.h>

#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

// A read past a window's end but inside its MR: rxe checks only the MR.
constexpr const char* kPastWindow = R"(buf b0 len=4096
alloc_pd p0
reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND
alloc_mw w0 pd=p0
create_qp q0 pd=p0
bind_mw q0 w0 mr=m0 addr=b0+64 len=128 access=REMOTE_READ
peer_read q0 rkey=w0 addr=w0+256 len=8
)";

std::unique_ptr<Backend> backend(const char* spec) {
  std::string err;
  auto b = make_backend(spec, err);
  EXPECT_TRUE(b) << err;
  return b;
}

TEST(Divergence, AKnobTheProfilesSetDifferentlyExplainsIt) {
  const Trace t = testing::parse_or_fail(kPastWindow);
  auto verbs = backend("verbs"), rxe = backend("rxe");
  std::vector<Outcome> oa, ob;
  const auto d = first_divergence(t, *verbs, *rxe, oa, ob);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op, 6u);
  EXPECT_EQ(d->a.wc, WcStatus::kIBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(d->b.wc, WcStatus::kIBV_WC_SUCCESS);
  EXPECT_TRUE(d->explained);
  EXPECT_NE(differing_knobs(*verbs, *rxe) & (1u << static_cast<int>(Knob::remote_range)), 0u);
}

TEST(Divergence, AMutantOnItsBaseProfileIsNeverExplained) {
  const Trace t = testing::parse_or_fail(kPastWindow);
  auto verbs = backend("profile:verbs"), mutant = backend("mutant:range_mr_only");
  EXPECT_EQ(differing_knobs(*verbs, *mutant), 0u);
  std::vector<Outcome> oa, ob;
  const auto d = first_divergence(t, *verbs, *mutant, oa, ob);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->op, 6u);
  EXPECT_FALSE(d->explained);
  EXPECT_EQ(d->b.rule, Rule::remote_ok);
}

TEST(Divergence, NoneWhenEveryOutcomeAgrees) {
  const Trace t = testing::parse_or_fail("buf b0 len=64\nalloc_pd p0\ndealloc_pd p0\n");
  auto a = backend("ibta"), b = backend("det");
  std::vector<Outcome> oa, ob;
  EXPECT_FALSE(first_divergence(t, *a, *b, oa, ob));
  EXPECT_EQ(oa.size(), 3u);
}

}  // namespace
}  // namespace mwc
