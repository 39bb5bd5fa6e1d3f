#include "refmodel/op.hpp"

#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "refmodel/binary_codec.hpp"
#include "refmodel/text_codec.hpp"
#include "refmodel/vocab.hpp"

namespace mwc {
namespace {

TEST(OpTable, NamesAreUniqueAndLookUp) {
  std::set<std::string_view> names;
  for (int i = 0; i < kOpCount; ++i) {
    const auto& d = op_desc(static_cast<OpCode>(i));
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_EQ(op_from_name(d.name), i);
    EXPECT_LE(d.fields.size(), static_cast<size_t>(kMaxFields));
  }
  EXPECT_EQ(op_from_name("no_such_op"), kOpCount);
}

TEST(OpTable, FieldNamesAreUniqueAndPositionalsLead) {
  for (int i = 0; i < kOpCount; ++i) {
    const auto& d = op_desc(static_cast<OpCode>(i));
    std::set<std::string_view> fields;
    bool keyword_seen = false;
    for (const auto& f : d.fields) {
      EXPECT_TRUE(fields.insert(f.name).second) << d.name << "." << f.name;
      if (f.mode == FieldMode::Pos) {
        EXPECT_FALSE(keyword_seen) << d.name << "." << f.name;
      } else {
        keyword_seen = true;
      }
      if (f.kind == FieldKind::U64) {
        EXPECT_LE(f.lo, f.hi) << d.name << "." << f.name;
      }
    }
  }
}

TEST(OpTable, EveryOpHasARecordAndAText) {
  for (int i = 0; i < kOpCount; ++i) {
    const auto code = static_cast<OpCode>(i);
    EXPECT_GT(record_size(code), 1u);
    Op op = default_op(code);
    for (size_t f = 0; f < op_desc(code).fields.size(); ++f)
      if (op_desc(code).fields[f].mode != FieldMode::Opt && is_handle(op_desc(code).fields[f].kind)) op.a[f].h = 0;
    // Required non-handle fields take a value the parser accepts.
    std::string text = op_to_text(op);
    for (const auto& f : op_desc(code).fields) {
      if (f.mode != FieldMode::Req || is_handle(f.kind)) continue;
      const char* v = f.kind == FieldKind::Rkey   ? "w0"
                      : f.kind == FieldKind::Addr ? "b0"
                      : f.kind == FieldKind::QpState ? "RTS"
                      : f.kind == FieldKind::ReregFlags ? "CHANGE_ACCESS"
                                                     : "1";
      if (text.find(" " + std::string(f.name) + "=") == std::string::npos)
        text += " " + std::string(f.name) + "=" + v;
    }
    auto r = parse_text(text);
    ASSERT_TRUE(std::holds_alternative<Trace>(r)) << text << ": " << std::get<ParseError>(r).message;
  }
}

TEST(OpTable, TypedViewsReadFieldsInTableOrder) {
  Op op = default_op(OpCode::bind_mw);
  op.a[0].h = 3;   // qp
  op.a[1].h = 5;   // mw
  op.a[4].v = 64;  // len
  const args::bind_mw v{op};
  EXPECT_EQ(v.qp, 3u);
  EXPECT_EQ(v.mw, 5u);
  EXPECT_EQ(v.mr, kNoHandle);
  EXPECT_EQ(v.len, 64u);
}

// A value of each field kind, none a default: as the text names it and as
// the field holds it.
struct Sample {
  std::string text;
  Arg arg;
};
Sample sample(FieldKind k, uint64_t def, uint64_t lo, uint64_t hi) {
  if (is_handle(k)) return {kHandlePrefix[static_cast<int>(k)] + std::string("3"), Arg{0, 3, 0}};
  switch (k) {
    case FieldKind::U64: {
      const uint64_t v = hi != def ? hi : lo;
      return {std::to_string(v), Arg{v, kNoHandle, 0}};
    }
    case FieldKind::Access: return {"REMOTE_READ|MW_BIND", Arg{acc::REMOTE_READ | acc::MW_BIND, kNoHandle, 0}};
    case FieldKind::SendFlags: return {"FENCE|SIGNALED", Arg{sendf::FENCE | sendf::SIGNALED, kNoHandle, 0}};
    case FieldKind::ReregFlags: return {"CHANGE_PD", Arg{rereg::CHANGE_PD, kNoHandle, 0}};
    case FieldKind::QpType: return {"UC", Arg{qpt::UC, kNoHandle, 0}};
    case FieldKind::QpState:
      return {"RTR", Arg{static_cast<uint64_t>(QpState::kRTR), kNoHandle, 0}};
    case FieldKind::Addr: return {"b2+16", Arg{16, 2, static_cast<uint8_t>(AddrBase::Buf)}};
    case FieldKind::Rkey: return {"w1.prev", Arg{0, 1, static_cast<uint8_t>(RkeyBase::MwPrev)}};
    case FieldKind::Key: return {"0x12", Arg{0x12, kNoHandle, static_cast<uint8_t>(KeyBase::Abs)}};
    default: break;
  }
  ADD_FAILURE() << "no sample of field kind " << static_cast<int>(k);
  return {};
}

// Every op, every field set through its builder's named member, gives the
// op the parser reads from the text naming the same values.
TEST(OpTable, ATypedBuilderMakesTheOpItsTextParsesTo) {
#define MWC_SET(kind, fname, mode, use, def, lo, hi)                                       \
  {                                                                                   \
    const Sample s = sample(FieldKind::kind, def, lo, hi);                            \
    b.fname = args::load<FieldKind::kind>(s.arg);                                     \
    text += FieldMode::mode == FieldMode::Pos ? " " + s.text : " " #fname "=" + s.text; \
  }
#define OP(name, bin, kind, summary)                                                      \
  {                                                                                  \
    args::name b;                                                                    \
    EXPECT_EQ(b.to_op(), default_op(OpCode::name)) << #name;                         \
    std::string text = #name;                                                        \
    MWC_FIELDS_##name(MWC_SET);                                                      \
    const auto r = parse_text(text);                                                 \
    ASSERT_TRUE(std::holds_alternative<Trace>(r)) << text << ": " << std::get<ParseError>(r).message; \
    ASSERT_EQ(std::get<Trace>(r).ops.size(), 1u);                                    \
    EXPECT_EQ(b.to_op(), std::get<Trace>(r).ops[0]) << text << " vs " << op_to_text(b.to_op()); \
    EXPECT_EQ(args::name{b.to_op()}.to_op(), b.to_op()) << text;                     \
  }
  MWC_OPS(OP)
#undef OP
#undef MWC_SET
}

// A view read from an op and turned back into one gives that very op, for
// whatever op a byte string decodes to.
struct BackToOp {
#define OP(name, bin, kind, summary) \
  Op on_##name(const args::name& a) const { return a.to_op(); }
  MWC_OPS(OP)
#undef OP
};
TEST(OpTable, AViewOfAnyDecodedOpGivesTheOpBack) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bytes(1 << 16);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  const Trace t = decode_records(bytes, Caps{4, 4, 4, 4, 4});
  ASSERT_GT(t.ops.size(), 1000u);
  std::set<OpCode> seen;
  BackToOp back;
  for (const Op& op : t.ops) {
    EXPECT_EQ(dispatch(back, op), op) << op_to_text(op);
    seen.insert(op.code);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kOpCount));
}

}  // namespace
}  // namespace mwc
