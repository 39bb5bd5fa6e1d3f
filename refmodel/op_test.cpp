#include "refmodel/op.hpp"

#include <set>

#include <gtest/gtest.h>

#include "refmodel/binary_codec.hpp"
#include "refmodel/text_codec.hpp"

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

}  // namespace
}  // namespace mwc
