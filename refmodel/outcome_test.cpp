#include "refmodel/outcome.hpp"

#include <gtest/gtest.h>

namespace mwc {
namespace {

Pattern parse(std::string_view s) {
  std::string err;
  size_t at = 0;
  auto p = parse_pattern(s, err, at);
  EXPECT_TRUE(p) << s << ": " << err;
  return p.value_or(Pattern{});
}

TEST(Outcome, TextRoundTrips) {
  for (const char* s : {"OK", "EPERM", "EMPTY", "IBV_WC_SUCCESS", "IBV_WC_MW_BIND_ERR IBV_WC_BIND_MW",
                        "OK key=+3", "*", "ENOMEM"})
    EXPECT_EQ(to_text(parse(s)), s);
}

TEST(Outcome, ACompletionImpliesOk) {
  const Pattern p = parse("IBV_WC_REM_ACCESS_ERR");
  EXPECT_EQ(p.ret, Result::kOK);
}

TEST(Outcome, LeftOutPartsMatchAnything) {
  Outcome o;
  o.key = 7;
  EXPECT_TRUE(matches(parse("OK"), o));
  EXPECT_FALSE(matches(parse("OK key=+6"), o));
  EXPECT_TRUE(matches(parse("*"), o));
  o.ret = Result::kEPERM;
  EXPECT_FALSE(matches(parse("OK"), o));
}

TEST(Outcome, BadTokensAreRejectedWithTheirOffset) {
  std::string err;
  size_t at = 0;
  EXPECT_FALSE(parse_pattern("OK  EPERMX", err, at));
  EXPECT_EQ(at, 4u);
  EXPECT_FALSE(parse_pattern("OK EPERM", err, at));
  EXPECT_FALSE(parse_pattern("key=+256", err, at));
  EXPECT_FALSE(parse_pattern("   ", err, at));
}

TEST(Outcome, RuleAndKnobsDoNotCount) {
  Outcome a, b;
  a.rule = Rule::bind_ok;
  b.rule = Rule::bind_range;
  b.knobs = 5;
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace mwc
