#include "adapters/minimize.hpp"

#include <gtest/gtest.h>

#include "adapters/divergence.hpp"
#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

bool has(const Trace& t, OpCode c) {
  for (const Op& op : t.ops)
    if (op.code == c) return true;
  return false;
}

TEST(Minimize, KeepsOnlyTheOpsTheFailureNeeds) {
  Trace t = testing::parse_or_fail(R"(buf b0 len=4096
alloc_pd p0
alloc_pd p1 => OK
buf b1 len=64
dealloc_pd p1 => OK
alloc_pd p2
create_qp q0 pd=p0
poll_cq q0
)");
  const auto fails = [](const Trace& c) { return has(c, OpCode::dealloc_pd) && has(c, OpCode::poll_cq); };
  MinimizeStats st;
  const Trace m = minimize(t, fails, 1000, &st);
  ASSERT_EQ(m.ops.size(), 2u);
  EXPECT_EQ(m.ops[0].code, OpCode::dealloc_pd);
  EXPECT_EQ(m.ops[1].code, OpCode::poll_cq);
  EXPECT_EQ(m.ops[0].a[0].h, 0u);  // p1 renumbered to p0
  EXPECT_EQ(m.caps[static_cast<int>(HandleKind::Pd)], 1u);
  ASSERT_EQ(m.expects.size(), 1u);  // expectations follow their op
  EXPECT_EQ(m.expects[0].op, 0u);
  EXPECT_EQ(st.ops_before, 8u);
  EXPECT_EQ(st.ops_after, 2u);
  EXPECT_LE(st.tests, 1000u);
}

TEST(Minimize, ReturnsTheTraceUnchangedWhenItDoesNotFail) {
  const Trace t = testing::parse_or_fail("alloc_pd p0\nalloc_pd p1\n");
  const Trace m = minimize(t, [](const Trace&) { return false; });
  EXPECT_EQ(m, t);
}

TEST(Minimize, StopsAtItsBudget) {
  Trace t;
  t.ops.assign(64, default_op(OpCode::alloc_pd));
  size_t calls = 0;
  const auto fails = [&](const Trace& c) { return ++calls, c.ops.size() >= 3; };
  MinimizeStats st;
  minimize(t, fails, 5, &st);
  EXPECT_EQ(calls, 5u);
  EXPECT_EQ(st.tests, 5u);
}

// The predicate the fuzzer uses: the same two backends still diverge, at
// the same rules.
TEST(Minimize, ShrinksAMutantDivergenceToItsWitness) {
  const Trace t = testing::parse_or_fail(R"(buf b0 len=4096
buf b1 len=4096
alloc_pd p0
alloc_pd p1
reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND
reg_mr m1 pd=p1 addr=b1 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND
alloc_mw w0 pd=p0
alloc_mw w1 pd=p1
create_qp q0 pd=p0
create_qp q1 pd=p1
bind_mw q1 w1 mr=m1 addr=b1 len=128 access=REMOTE_READ
poll_cq q1
bind_mw q0 w0 mr=m0 addr=b0+64 len=128 access=REMOTE_READ flags=SIGNALED
peer_read q1 rkey=w1 addr=w1 len=8
)");
  std::string err;
  auto a = make_backend("verbs", err), b = make_backend("mutant:key_not_advanced", err);
  std::vector<Outcome> oa, ob;
  const auto d0 = first_divergence(t, *a, *b, oa, ob);
  ASSERT_TRUE(d0);
  const auto same = [&](const Trace& c) {
    const auto d = first_divergence(c, *a, *b, oa, ob);
    return d && !d->explained && d->a.rule == d0->a.rule && d->b.rule == d0->b.rule;
  };
  const Trace m = minimize(t, same);
  EXPECT_TRUE(same(m));
  // bind.ok needs a QP, a window, an MR with MW_BIND and what they stand on;
  // the second PD, buffer, MR, window and QP go, and so do the bind's
  // access and flags (back to their defaults).
  ASSERT_EQ(m.ops.size(), 6u) << print_text(m);
  EXPECT_EQ(m.ops.back().code, OpCode::bind_mw);
  const args::bind_mw bind(m.ops.back());
  EXPECT_EQ(bind.qp, 0u);
  EXPECT_EQ(bind.access, 0u);
  EXPECT_EQ(bind.flags, 0u);
  EXPECT_EQ(m.caps, (Caps{1, 1, 1, 1, 1}));
}

}  // namespace
}  // namespace mwc
