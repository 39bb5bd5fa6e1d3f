// mwcheck prove, end to end: the theorems hold (or fail as known), and every
// distinguishing trace it writes is confirmed by mwcheck diff.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;


TEST(Prove, WitnessesAreConfirmedByDiff) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_prove_test";
  fs::remove_all(dir);
  const Ran r = mwcheck({"prove", "--json", "--witness-dir", dir.string()});
  ASSERT_EQ(r.status, kExitOk) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["witnesses"].empty());
  for (const auto& w : j["witnesses"]) {
    const std::string file = (dir / w["file"].get<std::string>()).string();
    const std::string a = w["a"], b = w["b"];
    const Ran d = mwcheck({"diff", "-a", a, "-a", b, file});
    EXPECT_EQ(d.status, kExitFail) << file << "\n" << d.out << d.err;
    EXPECT_NE(d.out.find("first divergence at op"), std::string::npos) << d.out;
    // The expectations written into the trace hold under both profiles.
    for (const std::string& p : {a, b}) {
      const Ran c = mwcheck({"run", "--check", "--quiet", "--profile", p, file});
      EXPECT_EQ(c.status, kExitOk) << file << " under " << p << "\n" << c.err;
    }
  }
  size_t known = 0;
  for (const auto& t : j["theorems"]) {
    EXPECT_TRUE(t["as_expected"].get<bool>()) << t.dump();
    if (t["trace"].get<std::string>().empty()) continue;
    ++known;
    const std::string file = (dir / t["trace"].get<std::string>()).string();
    for (const char* p : {"verbs", "rxe"}) {
      const Ran c = mwcheck({"run", "--check", "--quiet", "--profile", p, file});
      EXPECT_EQ(c.status, kExitOk) << file << "\n" << c.err;
    }
  }
  EXPECT_EQ(known, 3u);
}

TEST(Prove, TablePrintsTimesAndExitsZero) {
  const Ran r = mwcheck({"prove"});
  EXPECT_EQ(r.status, kExitOk) << r.out;
  EXPECT_NE(r.out.find("range.window_inside_mr"), std::string::npos);
  EXPECT_NE(r.out.find("bind.range"), std::string::npos);
  EXPECT_NE(r.out.find(" ms"), std::string::npos);
  EXPECT_NE(r.out.find("counterexample (known)"), std::string::npos);
}

TEST(Prove, UnwritableWitnessDirExitsTwo) {
  const fs::path file = fs::temp_directory_path() / "mwcheck_prove_test_file";
  std::ofstream(file) << "x";
  const Ran r = mwcheck({"prove", "--witness-dir", (file / "sub").string()});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("error: cannot write"), std::string::npos) << r.err;
}

// Only the last folder is made: a mistyped parent is an error, found before
// the proofs run.
TEST(Prove, WitnessDirOfAMissingParentExitsTwo) {
  const fs::path base = fs::temp_directory_path() / "mwcheck_prove_test_parent";
  fs::remove_all(base);
  const Ran r = mwcheck({"prove", "--witness-dir", (base / "w").string()});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(base));
}

}  // namespace
}  // namespace mwc::cli
