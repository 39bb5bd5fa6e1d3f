// mwcheck prove --traces, end to end: the invariants hold under the
// normative profiles; bad scopes and profiles are bad input.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

TEST(ProveTraces, EveryInvariantHoldsUnderTheNormativeProfilesUpToFourVerbs) {
  const Ran r = mwcheck({"prove", "--traces", "4", "-p", "ibta", "-p", "verbs", "--json"});
  ASSERT_EQ(r.status, kExitOk) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["profiles"].size(), 2u);
  for (const auto& p : j["profiles"]) {
    EXPECT_GT(p["states"].get<uint64_t>(), 1000u);
    for (const auto& i : p["invariants"]) EXPECT_TRUE(i["holds"].get<bool>()) << i.dump();
  }
}

TEST(ProveTraces, BadScopesAndProfilesAreBadInput) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"prove", "--traces", "2", "--scope", "pd=9"},
        {"prove", "--traces", "2", "--scope", "cq=1"},
        {"prove", "--traces", "2", "-p", "nosuch"}}) {
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << r.out << r.err;
    EXPECT_NE(r.err.find(":1:1: error:"), std::string::npos) << r.err;
  }
  const Ran r = mwcheck({"prove", "--traces", "99"});
  EXPECT_EQ(r.status, kExitBadInput) << r.err;
}

}  // namespace
}  // namespace mwc::cli
