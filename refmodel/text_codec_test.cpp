#include "refmodel/text_codec.hpp"

#include <gtest/gtest.h>

#include "refmodel/test_util.hpp"

namespace mwc {
namespace {

ParseError error_of(std::string_view text) {
  auto r = parse_text(text);
  EXPECT_TRUE(std::holds_alternative<ParseError>(r)) << text;
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r) : ParseError{};
}

TEST(TextCodec, ParsesHandlesAddressesKeysAndExpectations) {
  const Trace t = testing::parse_or_fail(
      "# leading\n"
      "wr_bind_mw q1 w2 mr=m3 addr=m3+64 len=0x100 access=IBV_ACCESS_REMOTE_READ key=-1 => OK key=+3; det,rxe: EPERM\n"
      "peer_read q1 rkey=w2.prev+1 addr=w2-8 len=8  # tail\n");
  ASSERT_EQ(t.ops.size(), 2u);
  const args::wr_bind_mw b{t.ops[0]};
  EXPECT_EQ(b.qp, 1u);
  EXPECT_EQ(b.mw, 2u);
  EXPECT_EQ(b.mr, 3u);
  EXPECT_EQ(b.addr.tag, static_cast<uint8_t>(AddrBase::Mr));
  EXPECT_EQ(b.addr.v, 64u);
  EXPECT_EQ(b.len, 256u);
  EXPECT_EQ(b.key.v, 255u);
  const args::peer_read r{t.ops[1]};
  EXPECT_EQ(r.rkey.tag, static_cast<uint8_t>(RkeyBase::MwPrev));
  EXPECT_EQ(r.rkey.v, 1u);
  EXPECT_EQ(r.addr.v, uint64_t{0} - 8);
  ASSERT_EQ(t.expects.size(), 2u);
  EXPECT_TRUE(t.expects[0].fallback);
  EXPECT_EQ(t.expects[1].profiles, (1u << 2) | (1u << 3));
  EXPECT_EQ(t.caps[static_cast<int>(HandleKind::Mr)], 4u);
  EXPECT_EQ(*expected(t, 0, 3)->ret, Result::kEPERM);
  EXPECT_EQ(*expected(t, 0, 1)->key, 3);
  EXPECT_EQ(expected(t, 1, 1), nullptr);
}

TEST(TextCodec, PrintIsCanonicalAndAFixedPoint) {
  const std::string text =
      "# c1\n"
      "buf b0 len=4096\n"
      "alloc_pd p0\n"
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|MW_BIND => OK; rxe: EINVAL\n"
      "alloc_mw w0 pd=p0 type=2  # eol\n"
      "create_qp q0 pd=p0 type=UC depth=4 sig_all=0 state=INIT\n"
      "peer_write q0 rkey=0xdeadbeef addr=0xffffffffffffff00 len=4294967295 => IBV_WC_SUCCESS\n"
      "# trailing\n";
  const Trace t = testing::parse_or_fail(text);
  EXPECT_EQ(print_text(t), text);
  // Non-canonical spelling prints canonically.
  const Trace u = testing::parse_or_fail("alloc_mw   w0  type=1 pd=p0 =>   det: EPERM ; OK\n");
  EXPECT_EQ(print_text(u), "alloc_mw w0 pd=p0 => OK; det: EPERM\n");
  EXPECT_EQ(testing::parse_or_fail(print_text(u)), u);
}

TEST(TextCodec, ErrorsNameLineAndColumn) {
  struct Case {
    const char* text;
    uint32_t line, col;
    const char* fragment;
  } cases[] = {
      {"alloc_pd p0\nfrobnicate q0\n", 2, 1, "unknown op"},
      {"alloc_pd x0\n", 1, 10, "handle"},
      {"reg_mr m0 pd=p0 addr=b0 len=99999999999999999999999\n", 1, 29, "number"},
      {"create_qp q0 pd=p0 depth=65\n", 1, 26, "outside"},
      {"reg_mr m0 pd=p0 addr=b0 len=1 access=LOCAL_WRITE|NOPE\n", 1, 50, "unknown flag"},
      {"alloc_pd p0 => OK; nosuch: EPERM\n", 1, 20, "unknown profile"},
      {"alloc_pd p0 => OK; det: EPERM; det: OK\n", 1, 32, "two expectations"},
      {"alloc_pd p0 => FINE\n", 1, 16, "unknown outcome"},
      {"alloc_pd p0 =>\n", 1, 15, "empty"},
      {"reg_mr m0 pd=p0\n", 1, 16, "needs field addr"},
      {"alloc_pd p0 pd=p1\n", 1, 13, "no field"},
      {"alloc_pd p0 p1\n", 1, 13, "unexpected"},
      {"alloc_pd p99999999\n", 1, 10, "limit"},
      {"peer_read q0 rkey=w1.next addr=w1\n", 1, 19, "rkey"},
      {"wr_bind_mw q0 w0 key=300\n", 1, 22, "key byte"},
      {"alloc_pd p0\n  => OK\n", 2, 3, "needs an op"},  // found by fuzz_text
  };
  for (const auto& c : cases) {
    const ParseError e = error_of(c.text);
    EXPECT_EQ(e.line, c.line) << c.text;
    EXPECT_EQ(e.col, c.col) << c.text << ": " << e.message;
    EXPECT_NE(e.message.find(c.fragment), std::string::npos) << c.text << ": " << e.message;
  }
}

TEST(TextCodec, CorpusRoundTripsThroughText) {
  for (const auto& f : testing::corpus_files()) {
    const Trace t = testing::parse_or_fail(testing::read_file(f));
    EXPECT_EQ(testing::parse_or_fail(print_text(t)), t) << f;
  }
}

// What a recording may hold and a trace may not is named before it is
// written: a number outside its field's range, a handle beyond its limit.
TEST(TextCodec, BeyondLimitsNamesTheOpAndTheField) {
  Trace t;
  Op buf = default_op(OpCode::buf);
  buf.a[0].h = 0;
  buf.a[1].v = MWC_LEN_MAX + 1;
  t.ops.push_back(buf);
  EXPECT_EQ(beyond_limits(t), "op 1 (buf b0 len=0x100000001): len 4294967297 is outside 1..4294967296");
  t.ops[0].a[1].v = 4096;
  EXPECT_EQ(beyond_limits(t), "");
  Op pd = default_op(OpCode::alloc_pd);
  pd.a[0].h = kMaxCap[static_cast<int>(HandleKind::Pd)];
  t.ops.push_back(pd);
  EXPECT_EQ(beyond_limits(t), "op 2 (alloc_pd p65536) names object p65536, beyond the limit of 65536 of its kind");
}

}  // namespace
}  // namespace mwc
