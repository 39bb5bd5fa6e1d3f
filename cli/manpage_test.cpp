#include "cli/manpage.hpp"

#include <cstdlib>
#include <regex>

#include <gtest/gtest.h>

#include "cli/test_app.hpp"
#include "refmodel/op.hpp"
#include "refmodel/profile.hpp"

namespace mwc::cli {
namespace {

std::string page() {
  const Ran r = mwcheck({"__man", std::string(std::getenv("MWCHECK_SOURCE_DIR")) + "/packaging/mwcheck.1.in"});
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

TEST(ManPage, EveryVerbOpAndKnobFromTheTables) {
  const std::string p = page();
  for (const char* v : {"run", "diff", "profiles", "convert", "conform", "replay", "gen", "record", "fuzz",
                        "power", "export"})
    EXPECT_NE(p.find(std::string(".SS ") + v + "\n"), std::string::npos) << v;
  for (int i = 0; i < kOpCount; ++i)
    EXPECT_NE(p.find(".TP\n\\fB" + std::string(op_desc(static_cast<OpCode>(i)).name)), std::string::npos)
        << op_desc(static_cast<OpCode>(i)).name;
  for (const auto& k : knob_descs()) EXPECT_NE(p.find(".B " + std::string(k.name)), std::string::npos);
  EXPECT_NE(p.find("\\fB\\-\\-shrink\\-seconds\\fR"), std::string::npos);
  // Placeholders are @NAME@ (a release is profile@release).
  EXPECT_FALSE(std::regex_search(p, std::regex("@[A-Z_]+@"))) << "a placeholder left";
  EXPECT_NE(p.find(".B rxe@6.12\n"), std::string::npos);
  EXPECT_EQ(p.find("__complete"), std::string::npos);
}

TEST(ManPage, AMissingTemplateIsBadInput) {
  EXPECT_EQ(mwcheck({"__man", "/nonexistent/mwcheck.1.in"}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"__man"}).status, kExitBadInput);
}

}  // namespace
}  // namespace mwc::cli
