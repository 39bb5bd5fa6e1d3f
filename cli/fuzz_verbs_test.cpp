// mwcheck fuzz and mwcheck power, driven in-process as the program runs them.
#include <filesystem>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "cli/test_app.hpp"
#include "refmodel/mutant.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;


std::string corpus() {
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  return (fs::path(src ? src : ".") / "corpus" / "conformance").string();
}

TEST(FuzzVerb, WritesAMinimizedReproducerThatDiffReplays) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_fuzz_verb_test";
  fs::remove_all(dir);
  const Ran r = mwcheck({"fuzz", "-a", "profile:verbs", "-a", "mutant:key_not_advanced", "--corpus", "none",
                     "--runs", "50000", "--out", dir.string()});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("finding 1"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("finding 1 at input"), std::string::npos) << r.err;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  const Ran d = mwcheck({"diff", "-a", "profile:verbs", "-a", "mutant:key_not_advanced", files[0].string()});
  EXPECT_EQ(d.status, 1) << d.out << d.err;
  EXPECT_NE(d.out.find("first divergence"), std::string::npos) << d.out;
  fs::remove_all(dir);
}

TEST(FuzzVerb, SameSeedSameOutput) {
  const std::vector<std::string> args = {"fuzz", "-a", "verbs", "-a", "mutant:stale_rkey", "--seed", "3",
                                         "--runs", "3000", "--keep-going", "--corpus", corpus()};
  const Ran a = mwcheck(args), b = mwcheck(args);
  EXPECT_EQ(a.status, b.status);
  // Everything but the timings is the same.
  const auto untimed = [](const std::string& s) {
    return std::regex_replace(s, std::regex(R"([0-9.]+s\)?|[0-9]+ execs/s)"), "T");
  };
  EXPECT_EQ(untimed(a.out), untimed(b.out));
  EXPECT_NE(a.out.find("finding 1"), std::string::npos) << a.out;
}

TEST(FuzzVerb, ProfilesThatOnlyDifferByKnobsGiveNoFinding) {
  const Ran r = mwcheck({"fuzz", "-a", "verbs", "-a", "rxe", "--runs", "3000", "--corpus", corpus()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("#3000 "), std::string::npos) << r.out;
}

// A campaign ends with its rule-coverage table: the corpus run as seeds
// reaches every branch it shows, and what only det's alternatives reach is
// out of reach, said so.
TEST(FuzzVerb, EndsWithTheRuleCoverageTable) {
  const Ran r = mwcheck({"fuzz", "-a", "verbs", "-a", "rxe", "--runs", "100", "--corpus", corpus()});
  EXPECT_NE(r.out.find("rule coverage under verbs, rxe:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("never reached"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("out of reach: ENOTCONN [post_bad_state=enotconn]: only under det"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("branches "), std::string::npos) << r.out;
}

TEST(FuzzVerb, BadArgumentsExitTwo) {
  EXPECT_EQ(mwcheck({"fuzz", "-a", "verbs", "-a", "mutant:nosuch", "--runs", "1"}).status, 2);
  EXPECT_EQ(mwcheck({"fuzz", "-a", "verbs", "-a", "rxe", "--runs", "1", "--time", "1"}).status, 2);
  EXPECT_EQ(mwcheck({"fuzz", "-a", "verbs", "-a", "rxe", "--corpus", "/nonexistent/dir"}).status, 2);
  EXPECT_EQ(mwcheck({"fuzz", "-a", "verbs"}).status, 2);
}

TEST(PowerVerb, TablesEveryMutant) {
  const Ran r = mwcheck({"power", "--seeds", "1", "--budget", "0.2", "--corpus", corpus()});
  EXPECT_TRUE(r.status == 0 || r.status == 1) << r.err;
  for (const auto& m : mutant_descs()) {
    const size_t at = r.out.find(std::string(m.name) + " ");
    ASSERT_NE(at, std::string::npos) << m.name << "\n" << r.out;
    // The conformance corpus catches every mutant.
    EXPECT_NE(r.out.substr(at, r.out.find('\n', at) - at).find("yes ("), std::string::npos) << r.out;
  }
}

// --mutant measures the mutants named, and a summary names the worst.
TEST(PowerVerb, OneMutantAndTheWorstOfEach) {
  const Ran r = mwcheck({"power", "--seeds", "2", "--budget", "20", "--corpus", corpus(), "--mutant", "stale_rkey"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("stale_rkey "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("key_not_advanced"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(2/2)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("power: 1 mutants x 2 seeds"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from nothing:    every seed found every mutant; worst median"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(stale_rkey)"), std::string::npos) << r.out;
}

TEST(PowerVerb, AnUnknownMutantExitsTwoNamingThem) {
  const Ran r = mwcheck({"power", "--mutant", "nosuch"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no mutant 'nosuch'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("range_mr_only"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mwc::cli
