#include "findings/baseline.hpp"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace mwc::findings {
namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string p = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + name;
  std::ofstream(p) << text;
  return p;
}

Finding finding(const char* key, Severity s) {
  Finding f;
  f.key = key;
  f.id = finding_id(key);
  f.severity = s;
  f.summary = key;
  f.devices = {"dev"};
  return f;
}

TEST(Baseline, NewFixedAndUnchanged) {
  const std::vector<Finding> before = {finding("a", Severity::security), finding("b", Severity::crash)};
  nlohmann::ordered_json j{{"findings_schema", kFindingsSchema}};
  for (const auto& f : before) j["findings"].push_back(to_json(f));
  std::string err;
  const auto stored = read_stored(write("baseline.json", j.dump(2)), err);
  ASSERT_TRUE(stored) << err;
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].severity, "security");
  const std::vector<Finding> now = {finding("b", Severity::crash), finding("c", Severity::hang)};
  const BaselineDiff d = compare(now, *stored);
  ASSERT_EQ(d.added.size(), 1u);
  EXPECT_EQ(d.added[0]->id, finding_id("c"));
  ASSERT_EQ(d.fixed.size(), 1u);
  EXPECT_EQ(d.fixed[0].id, finding_id("a"));
  ASSERT_EQ(d.unchanged.size(), 1u);
}

TEST(Baseline, IdsAreStable) {
  EXPECT_EQ(finding_id("security|remote.range|peer_read|OK IBV_WC_SUCCESS|OK IBV_WC_REM_ACCESS_ERR"),
            finding_id("security|remote.range|peer_read|OK IBV_WC_SUCCESS|OK IBV_WC_REM_ACCESS_ERR"));
  EXPECT_EQ(finding_id("x").size(), 9u);
  EXPECT_EQ(finding_id("x")[0], 'F');
}

TEST(Baseline, WhatIsNoReportIsAnErrorWithItsPlace) {
  std::string err;
  EXPECT_FALSE(read_stored(write("bad.json", "{\n  \"findings\": [1,\n"), err));
  // Where the input ends; no word of a baseline (export --from reads it too).
  EXPECT_NE(err.find("bad.json:3:1: error: not JSON, as a report.json of mwcheck conform --device is"),
            std::string::npos)
      << err;
  EXPECT_FALSE(read_stored(write("old.json", "{\"devices\": []}"), err));
  EXPECT_NE(err.find("schema"), std::string::npos);
  EXPECT_FALSE(read_stored("/nonexistent/report.json", err));
}

TEST(Baseline, FieldsOfAnotherTypeAreNoCrash) {
  // A report edited by hand: a schema that is no count is no report of
  // this schema; a finding's field of another type is an absent one.
  std::string err;
  for (const char* schema : {R"("1")", "1.5", "-1", "1e300", "null", "[1]", "{}", "true"}) {
    const std::string text = std::string(R"({"findings_schema": )") + schema + R"(, "findings": []})";
    EXPECT_FALSE(read_stored(write("schema.json", text), err)) << schema;
    EXPECT_NE(err.find("schema.json:1:1: error: not a report of mwcheck conform --device"), std::string::npos)
        << schema << ": " << err;
  }
  const auto stored = read_stored(
      write("types.json", R"({"findings_schema": 1, "findings": [{"id": "F00000001", "severity": 3,)"
                          R"( "summary": [], "devices": "dev", "rule": {}, "reproducer": null},)"
                          R"( {"id": "F00000002", "devices": ["a", 1, null, "b"]}]})"),
      err);
  ASSERT_TRUE(stored) << err;
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].severity, "");
  EXPECT_EQ((*stored)[0].summary, "");
  EXPECT_TRUE((*stored)[0].devices.empty());
  EXPECT_EQ((*stored)[0].reproducer, "");
  EXPECT_EQ((*stored)[1].devices, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(read_stored(write("noid.json", R"({"findings_schema": 1, "findings": [{"id": 5}]})"), err));
  EXPECT_NE(err.find("a finding without an id"), std::string::npos) << err;
}

}  // namespace
}  // namespace mwc::findings
