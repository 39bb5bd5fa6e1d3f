#include "cli/json_out.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

namespace mwc::cli {
namespace {

// The reproducible-builds convention: SOURCE_DATE_EPOCH is the time, as
// UTC; a value that is no count of seconds is an error, not the clock.
TEST(JsonOut, ReportTimeIsSourceDateEpochsWhenSet) {
  std::string why;
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  EXPECT_EQ(report_time(why), "2023-11-14T22:13:20Z");
  EXPECT_TRUE(reproducible());
  EXPECT_EQ(report_seconds(3.5), 0.0);
  for (const char* bad : {"", "yesterday", "12x", "-5", "+5", " 5", "99999999999999999999"}) {
    setenv("SOURCE_DATE_EPOCH", bad, 1);
    EXPECT_FALSE(report_time(why)) << bad;
    EXPECT_NE(why.find("SOURCE_DATE_EPOCH"), std::string::npos);
  }
  unsetenv("SOURCE_DATE_EPOCH");
  const auto now = report_time(why);
  ASSERT_TRUE(now);
  EXPECT_EQ(now->size(), 20u);
  EXPECT_EQ(now->back(), 'Z');
  EXPECT_FALSE(reproducible());
  EXPECT_EQ(report_seconds(3.5), 3.5);
}

TEST(JsonOut, TheHeaderNamesTheToolAndTheCommand) {
  const auto j = report_header("model", {{"conform", "--report", "r"}, "2023-11-14T22:13:20Z"});
  EXPECT_EQ(j["findings_schema"], 1);
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["tool"]["version"], std::string(tool_version()));
  EXPECT_EQ(j["command"], nlohmann::json::array({"mwcheck", "conform", "--report", "r"}));
}

}  // namespace
}  // namespace mwc::cli
