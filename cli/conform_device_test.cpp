// conform --device end to end, with backends that need no device: a model
// under a profile and a mutant model stand in for two kernels.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

fs::path corpus_of(const std::string& name, std::initializer_list<const char*> traces) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir / "corpus");
  const std::string src = std::string(std::getenv("MWCHECK_SOURCE_DIR")) + "/corpus/conformance/";
  for (const char* t : traces) fs::copy_file(src + t, dir / "corpus" / t);
  return dir;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

TEST(ConformDevice, TwoReleasesOfADriverSayWhichEachBehavesAs) {
  const fs::path dir = corpus_of("mwcheck-conform-releases", {"010_bind_type1_basic.mwt", "104_knob_dereg_bound.mwt",
                                                               "115_knob_bind_qp_pd.mwt"});
  const Ran r = mwcheck({"conform", "--device", "profile:rxe", "--device", "profile:rxe@6.12", "--corpus",
                         (dir / "corpus").string(), "--report", (dir / "report").string()});
  // Both readings of bind_qp_pd are readings; rxe@6.12's flushed failed
  // bind (failed_request_status=flushed) is a deviation: a finding.
  EXPECT_EQ(r.status, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("IBV_WC_WR_FLUSH_ERR"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  resembles most: rxe vs rxe@6.12 (rxe vs rxe@6.12)\n"), std::string::npos) << r.out;
  const auto j = read_json(dir / "report" / "report.json");
  EXPECT_EQ(j["devices"][0]["closest_profile"], "rxe");
  EXPECT_EQ(j["devices"][1]["closest_profile"], "rxe@6.12");
  EXPECT_EQ(j["devices"][1]["profiles_matched"]["rxe@6.12"], 3);
  EXPECT_EQ(j["devices"][1]["profiles_matched"]["rxe"], 2);
  // The rule table counts the releases too: rxe@6.12 explains every rule
  // on the device it describes, not all of them on the other.
  bool release_misses = false;
  for (const auto& rule : j["devices"][1]["rules"])
    EXPECT_NE(rule["explained_by"].get<std::string>().find("rxe@6.12"), std::string::npos) << rule["id"];
  for (const auto& rule : j["devices"][0]["rules"])
    release_misses = release_misses || rule["explained_by"].get<std::string>().find("rxe@6.12") == std::string::npos;
  EXPECT_TRUE(release_misses);
  std::ifstream h(dir / "report" / "report.html");
  const std::string html((std::istreambuf_iterator<char>(h)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("<li>resembles most: rxe vs rxe@6.12 (rxe vs rxe@6.12)</li>"), std::string::npos) << html;
  EXPECT_NE(html.find("; resembles most: rxe@6.12 (traces each profile matches"), std::string::npos) << html;
}

TEST(ConformDevice, ATraceThatDoesNotLoadStopsTheRunBeforeAnyDevice) {
  // A typo in the corpus, or an attacks folder that is not there, is said
  // at once: it cost a VM's boot and the whole corpus's minutes first.
  const fs::path dir = corpus_of("mwcheck-conform-typo", {"010_bind_type1_basic.mwt"});
  std::ofstream(dir / "corpus" / "020_typo.mwt") << "alloc_pd p0\nfrob p0\n";
  const std::string corpus = (dir / "corpus").string(), none = (dir / "no-attacks").string();
  const fs::path fine = corpus_of("mwcheck-conform-fine", {"010_bind_type1_basic.mwt"});
  for (const auto& [args, said] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--corpus", corpus}, corpus + "/020_typo.mwt:2:1: error: unknown op 'frob'\n"},
           {{"--corpus", (fine / "corpus").string(), "--attacks", none},
            none + ":1:1: error: no conformance traces here: No such file or directory\n"}}) {
    std::vector<std::string> command = {"conform", "--device", "profile:rxe", "--report", (dir / "report").string()};
    command.insert(command.end(), args.begin(), args.end());
    const Ran r = mwcheck(command);
    EXPECT_EQ(r.status, kExitBadInput) << r.out;
    EXPECT_EQ(r.err, said);
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(dir / "report" / "report.json"));
  }
}

TEST(ConformDevice, ProfilesNoTraceTellsApartAreNamedTogether) {
  // One basic bind tells no profile from another: the report names them
  // all, and claims no change between two releases.
  const fs::path dir = corpus_of("mwcheck-conform-alike", {"010_bind_type1_basic.mwt"});
  const Ran r = mwcheck({"conform", "--device", "profile:rxe", "--device", "profile:rxe@6.12", "--corpus",
                         (dir / "corpus").string(), "--report", (dir / "report").string()});
  EXPECT_EQ(r.status, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("resembles most, alike: ibta, verbs, det, rxe, mlx5, rxe@6.12 (no trace here tells them "
                       "apart; traces each profile matches as it stands: ibta 1, verbs 1, det 1, rxe 1, mlx5 1, "
                       "rxe@6.12 1)\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("resembles most: "), std::string::npos) << r.out;
  const auto j = read_json(dir / "report" / "report.json");
  EXPECT_GT(j["devices"][0]["closest_profiles"].size(), 2u);
  EXPECT_EQ(j["devices"][0]["closest_profiles"][0], j["devices"][0]["closest_profile"]);
}

TEST(ConformDevice, ABindThatMustNotTakeEffectSaysTheWindowKeepsItsKey) {
  // rxe binds a window with flags a window may not carry (knob mw_access).
  const fs::path dir = corpus_of("mwcheck-conform-kept-key", {"103_knob_mw_access.mwt"});
  const Ran r = mwcheck({"conform", "--device", "profile:rxe", "--corpus", (dir / "corpus").string()});
  EXPECT_EQ(r.status, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("  bind_mw => device OK key=+1; the specification: OK (the window keeps its key)\n"),
            std::string::npos)
      << r.out;
}

TEST(ConformDevice, FindingsFirstAndWhatDiffersBetweenTwoDevices) {
  const fs::path dir = corpus_of("mwcheck-conform-two", {"010_bind_type1_basic.mwt", "109_knob_remote_range.mwt",
                                                          "106_knob_type2_invalidator.mwt"});
  const Ran r = mwcheck({"conform", "--device", "profile:verbs", "--device", "profile:rxe", "--corpus",
                         (dir / "corpus").string(), "--report", (dir / "report").string(), "--export",
                         (dir / "report" / "exports").string()});
  EXPECT_EQ(r.status, 1) << r.err;
  // The summary comes first; rxe's deviations are security findings, on
  // the device that takes them and not on the other.
  EXPECT_EQ(r.out.find("\n== findings: "), 0u) << r.out;
  EXPECT_NE(r.out.find("[security]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("== between the devices =="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on rxe, not on verbs"), std::string::npos) << r.out;
  const auto j = read_json(dir / "report" / "report.json");
  EXPECT_EQ(j["findings_schema"], 1);
  ASSERT_FALSE(j["findings"].empty());
  for (const auto& f : j["findings"]) {
    EXPECT_EQ(f["devices"], nlohmann::json::array({"rxe"}));
    EXPECT_EQ(f["absent_on"], nlohmann::json::array({"verbs"}));
    EXPECT_EQ(f["id"].get<std::string>().size(), 9u);
    EXPECT_TRUE(f["minimal"].get<bool>()) << f["summary"];
    EXPECT_LE(f["ops"].get<int>(), f["shrunk_from"].get<int>());
  }
  // One failing testcase per finding in the JUnit XML.
  std::ifstream x(dir / "report" / "junit.xml");
  const std::string xml((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
  size_t failures = 0;
  for (size_t at = 0; (at = xml.find("<failure", at)) != std::string::npos; ++at) ++failures;
  EXPECT_EQ(failures, j["findings"].size());
  // The HTML links each export relative to itself.
  std::ifstream h(dir / "report" / "report.html");
  const std::string html((std::istreambuf_iterator<char>(h)), std::istreambuf_iterator<char>());
  const std::string id = j["findings"][0]["id"];
  EXPECT_NE(html.find("<a href=\"exports/" + id + "/repro.c\">repro.c</a>"), std::string::npos) << html;
}

TEST(ConformDevice, ABaselineSaysWhatIsNewFixedAndUnchanged) {
  const fs::path dir = corpus_of("mwcheck-conform-baseline", {"109_knob_remote_range.mwt",
                                                               "106_knob_type2_invalidator.mwt"});
  const std::string corpus = (dir / "corpus").string();
  ASSERT_EQ(mwcheck({"conform", "--device", "profile:rxe", "--corpus", corpus, "--report", (dir / "old").string()}).status, 1);
  // The same device again: nothing new, exit 0.
  const Ran same = mwcheck({"conform", "--device", "profile:rxe", "--corpus", corpus, "--baseline",
                            (dir / "old" / "report.json").string()});
  EXPECT_EQ(same.status, 0) << same.out << same.err;
  EXPECT_NE(same.out.find(" 0 new, 0 fixed, "), std::string::npos) << same.out;
  // A device with the deviations fixed: they are listed as fixed.
  const Ran fixed = mwcheck({"conform", "--device", "profile:verbs", "--corpus", corpus, "--baseline",
                             (dir / "old" / "report.json").string(), "--report", (dir / "new").string()});
  EXPECT_EQ(fixed.status, 0) << fixed.out;
  const auto j = read_json(dir / "new" / "report.json");
  EXPECT_TRUE(j["baseline"]["new"].empty());
  EXPECT_FALSE(j["baseline"]["fixed"].empty());
  // A file that is no report is bad input, with its place.
  std::ofstream(dir / "bad.json") << "{\"findings\": [";
  const Ran bad = mwcheck({"conform", "--device", "profile:verbs", "--corpus", corpus, "--baseline",
                           (dir / "bad.json").string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.json:1:"), std::string::npos) << bad.err;
}

TEST(ConformDevice, YardsticksAreSpecifications) {
  const fs::path dir = corpus_of("mwcheck-conform-yardstick", {"010_bind_type1_basic.mwt"});
  const Ran r = mwcheck({"conform", "--device", "profile:verbs", "--corpus", (dir / "corpus").string(),
                         "--against", "rxe"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("describes a driver"), std::string::npos) << r.err;
  for (const char* release : {"rxe@6.12", "profile:rxe@6.12"}) {
    const Ran d = mwcheck({"conform", "--device", "profile:verbs", "--corpus", (dir / "corpus").string(),
                           "--against", release});
    EXPECT_EQ(d.status, 2);
    EXPECT_NE(d.err.find("'rxe@6.12' describes a driver"), std::string::npos) << d.err;
  }
  const Ran v = mwcheck({"conform", "--device", "profile:verbs", "--corpus", (dir / "corpus").string(),
                         "--against", "ibta@1.3"});
  EXPECT_EQ(v.status, 2);
  EXPECT_NE(v.err.find("unknown profile 'ibta@1.3'"), std::string::npos) << v.err;
  const Ran p = mwcheck({"conform", "--device", "profile:verbs", "--corpus", (dir / "corpus").string(), "-p", "ibta"});
  EXPECT_EQ(p.status, 0) << p.out;
  EXPECT_NE(p.out.find("judged by ibta"), std::string::npos) << p.out;
}

}  // namespace
}  // namespace mwc::cli
