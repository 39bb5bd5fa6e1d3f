#include "findings/json_fields.hpp"

#include <gtest/gtest.h>

namespace mwc::findings {
namespace {

using nlohmann::json;

TEST(JsonFields, AFieldOfAnotherTypeIsAnAbsentOne) {
  const json j = json::parse(R"({"s": "text", "n": 7, "b": true, "a": [1], "neg": -1, "frac": 1.5,
                                 "big": 1e300, "huge": 18446744073709551615, "null": null, "o": {}})");
  EXPECT_EQ(text_field(j, "s"), "text");
  EXPECT_EQ(count_field(j, "n"), 7u);
  EXPECT_TRUE(flag_field(j, "b"));
  EXPECT_EQ(array_field(j, "a").size(), 1u);
  EXPECT_EQ(count_field(j, "huge"), UINT64_MAX);
  for (const char* k : {"n", "b", "a", "null", "o", "missing"}) EXPECT_EQ(text_field(j, k, "d"), "d") << k;
  for (const char* k : {"s", "b", "a", "neg", "frac", "big", "null", "o", "missing"})
    EXPECT_EQ(count_field(j, k, 5), 5u) << k;
  for (const char* k : {"s", "n", "a", "null", "missing"}) EXPECT_TRUE(flag_field(j, k, true)) << k;
  for (const char* k : {"s", "n", "b", "null", "o", "missing"}) EXPECT_TRUE(array_field(j, k).empty()) << k;
  // A count above the largest asked for is none.
  EXPECT_EQ(count_field(j, "n", 0, 6), 0u);
  EXPECT_EQ(count_field(j, "n", 0, 7), 7u);
  EXPECT_EQ(as_count(json(uint64_t{1} << 32), 3, UINT32_MAX), 3u);
}

TEST(JsonFields, WhatIsNoObjectHasNoFields) {
  for (const json& j : {json::parse("[1, 2]"), json::parse("\"s\""), json::parse("3"), json()}) {
    EXPECT_EQ(text_field(j, "s", "d"), "d");
    EXPECT_EQ(count_field(j, "n", 4), 4u);
    EXPECT_FALSE(flag_field(j, "b"));
    EXPECT_TRUE(array_field(j, "a").empty());
  }
}

}  // namespace
}  // namespace mwc::findings
