#include "cli/app.hpp"
#include "cli/test_app.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "adapters/backend.hpp"
#include "cli/load.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;


fs::path temp_file(const std::string& name, const std::string& content) {
  const fs::path p = fs::temp_directory_path() / ("mwcheck_app_test_" + name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

std::string corpus() {
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  return (fs::path(src ? src : ".") / "corpus" / "conformance").string();
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(corpus(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".mwt") files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  return files;
}

constexpr const char* kTrace =
    "buf b0 len=4096\nalloc_pd p0\n"
    "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
    "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\ncreate_qp q1 pd=p0\n"
    "bind_mw q0 w0 mr=m0 addr=m0 len=64 access=REMOTE_READ => OK key=+1\n"
    "peer_read q1 rkey=w0 addr=w0+8 len=64 => IBV_WC_REM_ACCESS_ERR; rxe: IBV_WC_SUCCESS\n";

TEST(App, HelpOnEveryVerb) {
  for (const char* verb : {"run", "diff", "profiles", "convert", "conform", "fuzz", "power"}) {
    const Ran r = mwcheck({verb, "--help"});
    EXPECT_EQ(r.status, 0) << verb;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << verb;
  }
}

TEST(App, BadArgumentsExitTwo) {
  EXPECT_EQ(mwcheck({}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"frobnicate"}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"run", "--profile", "nosuch", "x.mwt"}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"diff", "-a", "verbs", "x.mwt"}).status, kExitBadInput);
  const Ran r = mwcheck({"run", "/nonexistent/x.mwt"});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("/nonexistent/x.mwt:1:1: error: cannot open"), std::string::npos) << r.err;
}

TEST(App, RunPrintsTheTraceAnnotatedAndChecks) {
  const auto f = temp_file("run.mwt", kTrace).string();
  const Ran verbs = mwcheck({"run", "--check", "--profile", "verbs", f});
  EXPECT_EQ(verbs.status, 0) << verbs.err;
  EXPECT_NE(verbs.out.find("peer_read q1 rkey=w0 addr=w0+8 len=64 => IBV_WC_REM_ACCESS_ERR"),
            std::string::npos);
  const Ran rxe = mwcheck({"run", "--check", "--profile", "rxe", f});
  EXPECT_EQ(rxe.status, 0) << rxe.err;
  // A profile whose expectation is the fallback and whose outcome differs.
  const Ran adjusted = mwcheck({"run", "--check", "--profile", "verbs+remote_range=mr_only", f});
  EXPECT_EQ(adjusted.status, kExitFail);
  EXPECT_NE(adjusted.err.find(":8: mismatch under profile:verbs+remote_range=mr_only"), std::string::npos)
      << adjusted.err;
  EXPECT_NE(adjusted.out.find("# ^ MISMATCH"), std::string::npos);
  // Without --check a mismatch is shown, not failed.
  EXPECT_EQ(mwcheck({"run", "--profile", "verbs+remote_range=mr_only", f}).status, 0);
}

TEST(App, RunOutputIsAGoldenTrace) {
  const auto f = temp_file("golden.mwt", kTrace).string();
  const Ran first = mwcheck({"run", "--profile", "ibta", f});
  const auto g = temp_file("golden2.mwt", first.out).string();
  const Ran second = mwcheck({"run", "--check", "--profile", "ibta", g});
  EXPECT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(second.out, first.out);
}

TEST(App, DiffNamesTheFirstDivergenceAndItsRules) {
  const auto f = temp_file("diff.mwt", kTrace).string();
  const Ran r = mwcheck({"diff", "--against", "profile:verbs", "--against", "profile:rxe", f});
  EXPECT_EQ(r.status, kExitFail);
  EXPECT_NE(r.out.find(":8: first divergence at op 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rule remote.range"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("knobs consulted: remote_range"), std::string::npos) << r.out;
  EXPECT_EQ(mwcheck({"diff", "-a", "verbs", "-a", "mlx5", f}).status, 0);
}

TEST(App, ProfilesShowsFiveProfilesAndTheKnobs) {
  const Ran r = mwcheck({"profiles"});
  EXPECT_EQ(r.status, 0);
  for (const char* p : {"ibta", "verbs", "det", "rxe", "mlx5"}) EXPECT_NE(r.out.find(p), std::string::npos);
  EXPECT_NE(r.out.find("5 profiles, 21 knobs; 1 later release of a driver."), std::string::npos) << r.out;
  // A release is a column too: the knob only it reads otherwise shows there.
  EXPECT_NE(r.out.find("mlx5               rxe@6.12"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nfailed_request_status  own                own                own                own"
                       "                own                flushed"),
            std::string::npos)
      << r.out;
  const Ran j = mwcheck({"profiles", "--json"});
  EXPECT_EQ(j.status, 0);
  EXPECT_NE(j.out.find("\"alternatives\""), std::string::npos);
  // Each knob's values have the release's column too, as the matrix has.
  EXPECT_NE(j.out.find("\"mlx5\": \"own\",\n        \"rxe@6.12\": \"flushed\""), std::string::npos) << j.out;
}

TEST(App, ConvertRoundTripsTextBinaryText) {
  const auto f = temp_file("conv.mwt", kTrace).string();
  const auto b = (fs::temp_directory_path() / "mwcheck_app_test_conv.mwb").string();
  const auto t = (fs::temp_directory_path() / "mwcheck_app_test_conv2.mwt").string();
  ASSERT_EQ(mwcheck({"convert", f, b}).status, 0);
  ASSERT_EQ(mwcheck({"convert", b, t}).status, 0);
  std::ifstream in(t);
  const std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, kTrace);
  EXPECT_EQ(mwcheck({"run", "--check", "--quiet", b}).status, 0);
}

TEST(App, ConformPassesEveryProfileAndWritesReports) {
  ASSERT_FALSE(corpus_files().empty()) << "no corpus at " << corpus();
  const auto dir = (fs::temp_directory_path() / "mwcheck_app_test_report").string();
  const Ran r = mwcheck({"conform", "--corpus", corpus(), "--report", dir});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" 0 failed"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(fs::path(dir) / "report.json"));
  EXPECT_TRUE(fs::exists(fs::path(dir) / "junit.xml"));
  EXPECT_EQ(r.out.find("rules no expectation exercises"), std::string::npos) << r.out;
}

TEST(App, CorpusHasFortyTracesWithExpectationsForEveryProfile) {
  const auto files = corpus_files();
  EXPECT_GE(files.size(), 40u);
  std::ostringstream err;
  for (const auto& f : files) {
    const auto t = load_trace(f, err);
    ASSERT_TRUE(t) << err.str();
    for (int col = 0; col < kProfileCount; ++col) {
      bool any = false;
      for (uint32_t i = 0; i < t->ops.size(); ++i) any = any || expected(*t, i, col);
      EXPECT_TRUE(any) << f << " expects nothing of " << profile_descs()[col].name;
    }
  }
}

// For every knob there are two profiles that differ on it, and a corpus
// trace whose first divergence between them consults that knob.
TEST(App, EveryKnobHasADivergenceInTheCorpus) {
  const auto files = corpus_files();
  ASSERT_FALSE(files.empty()) << "no corpus at " << corpus();
  std::ostringstream err;
  std::vector<Trace> traces;
  for (const auto& f : files) traces.push_back(*load_trace(f, err));
  // The profiles and the drivers' later releases (rxe@6.12).
  const std::vector<Profile> all = described_profiles();
  for (int k = 0; k < kKnobCount; ++k) {
    const auto& kd = knob_descs()[k];
    bool found = false;
    for (size_t a = 0; a < all.size() && !found; ++a)
      for (size_t b = a + 1; b < all.size() && !found; ++b) {
        if (all[a].v[k] == all[b].v[k]) continue;
        std::string why;
        auto ba = make_backend(all[a].name, why);
        auto bb = make_backend(all[b].name, why);
        ASSERT_TRUE(ba && bb) << why;
        std::vector<Outcome> oa, ob;
        for (const auto& t : traces) {
          ba->run(t, oa);
          bb->run(t, ob);
          size_t i = 0;
          while (i < t.ops.size() && oa[i] == ob[i]) ++i;
          if (i < t.ops.size() && (((oa[i].knobs | ob[i].knobs) >> k) & 1)) found = true;
        }
      }
    EXPECT_TRUE(found) << "no corpus trace shows knob " << kd.name;
  }
}

}  // namespace
}  // namespace mwc::cli
