#include "fuzz/guide.hpp"

#include <map>
#include <set>

#include <gtest/gtest.h>

#include "refmodel/test_util.hpp"

namespace mwc::fuzz {
namespace {

// Two PDs; in p0 an MR, a type 1 window bound over [m0+64, m0+192), a type
// 2 window bound through q1, and three QPs; in p1 a QP and a window.
Trace state() {
  return testing::parse_or_fail(R"(buf b0 len=4096
alloc_pd p0
alloc_pd p1
reg_mr m0 pd=p0 addr=b0 len=1024 access=LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|MW_BIND
alloc_mw w0 pd=p0 type=1
alloc_mw w1 pd=p0 type=2
alloc_mw w2 pd=p1 type=1
create_qp q0 pd=p0
create_qp q1 pd=p0
create_qp q2 pd=p0
create_qp q3 pd=p1
bind_mw q0 w0 mr=m0 addr=m0+64 len=128 access=REMOTE_READ
wr_bind_mw q1 w1 mr=m0 addr=m0+256 len=64 access=REMOTE_READ
peer_read q0 rkey=w0 addr=w0 len=8
)");
}

uint32_t field_index(OpCode c, FieldKind k) {
  const auto& d = op_desc(c);
  for (uint32_t f = 0; f < d.fields.size(); ++f)
    if (d.fields[f].kind == k) return f;
  return kMaxFields;
}

// Addresses of a peer read through w0 land on and around the window's and
// the MR's bounds, and past 2^64 with the read's length.
TEST(Guide, AddressesLandOnAndAroundEveryBound) {
  const Trace t = state();
  const size_t at = t.ops.size() - 1;
  Model m(profile(ProfileId::verbs));
  m.reset(t.caps);
  for (size_t i = 0; i < at; ++i) m.step(t.ops[i]);
  const Guide g(t, at);
  const Op read = t.ops[at];
  const uint32_t f = field_index(read.code, FieldKind::Addr);
  const uint64_t w = m.object(HandleKind::Mw, 0).addr, mr = m.object(HandleKind::Mr, 0).addr;
  std::set<uint64_t> seen;
  Rng rng(1);
  for (int i = 0; i < 4000; ++i) seen.insert(m.addr_of(g.field(read, f, ~(1u << f), rng)));
  for (uint64_t want : {w - 1, w, w + 1, w + 127, w + 128, w + 129, w + 120, w + 121,  // the window
                        mr - 1, mr, mr + 1024, mr + 1025, mr + 1016,                  // the MR
                        0 - uint64_t{8}, ~uint64_t{0}})                                // wrap
    EXPECT_TRUE(seen.count(want)) << std::hex << want;
}

// Lengths of a bind reach its MR's end from the bind's address, +-1.
TEST(Guide, LengthsReachTheExtentsEnd) {
  Trace t = state();
  const Guide g(t, t.ops.size());
  Op bind = t.ops[11];  // bind_mw q0 w0 mr=m0 addr=m0+64
  const uint32_t f = field_index(bind.code, FieldKind::U64);
  std::set<uint64_t> seen;
  Rng rng(2);
  for (int i = 0; i < 2000; ++i) seen.insert(g.field(bind, f, ~(1u << f), rng).v);
  for (uint64_t want : {959u, 960u, 961u, 1023u, 1024u, 1025u}) EXPECT_TRUE(seen.count(want)) << want;
}

// A handle is chosen by its relation to the objects the op names: each
// relation class about as often, however many members it has.
TEST(Guide, HandlesByRelation) {
  Trace t = state();
  const Guide g(t, t.ops.size());
  // peer_read's QP, given rkey=w1 (type 2, bound through q1): q1 the
  // owner, q0 and q2 others of its PD, q3 of another PD.
  Op read = default_op(OpCode::peer_read);
  const uint32_t rk = field_index(read.code, FieldKind::Rkey);
  read.a[rk] = Arg{0, 1, static_cast<uint8_t>(RkeyBase::MwCur)};
  std::map<uint32_t, int> n;
  Rng rng(3);
  for (int i = 0; i < 3000; ++i) ++n[g.handle(HandleKind::Qp, read, 1u << rk, rng)];
  EXPECT_GT(n[1], 3000 / 4) << "the owner QP";
  EXPECT_GT(n[3], 3000 / 4) << "the QP of another PD";
  EXPECT_GT(n[0] + n[2], 3000 / 4) << "the owner's PD, not the owner";
}

// A bind's access flags fall in every class the bind access chain
// (rules.hpp) makes of them over the MR: passing, and failing each check.
TEST(Guide, AccessFlagsReachEveryCheckOfTheBindChain) {
  Trace t = state();
  const Guide g(t, t.ops.size());
  Op bind = t.ops[11];
  const uint32_t f = field_index(bind.code, FieldKind::Access);
  const Profile p = profile(ProfileId::verbs);
  std::map<int, int> cls;
  Rng rng(4);
  for (int i = 0; i < 1000; ++i) {
    const uint32_t a = static_cast<uint32_t>(g.field(bind, f, ~(1u << f), rng).v);
    int c = 0;
    for (const auto& chk : rules::kBindAccessChain<Concrete>) {
      if (!chk.holds(a, acc::LOCAL_WRITE | acc::REMOTE_READ | acc::REMOTE_WRITE | acc::MW_BIND,
                     chk.uses_knob ? p[chk.knob] : 0))
        break;
      ++c;
    }
    ++cls[c];
  }
  EXPECT_GT(cls[0], 100) << "bind.mw_access refuses";
  EXPECT_GT(cls[static_cast<int>(std::size(rules::kBindAccessChain<Concrete>))], 100) << "every check passes";
}

TEST(Guide, SameStateSameRngSameOps) {
  const Trace t = state();
  Rng a(9), b(9);
  for (int c = 0; c < kOpCount; ++c) {
    const Op x = Guide(t, 5).make(static_cast<OpCode>(c), a);
    const Op y = Guide(t, 5).make(static_cast<OpCode>(c), b);
    EXPECT_EQ(x, y) << op_desc(x.code).name;
  }
}

}  // namespace
}  // namespace mwc::fuzz
