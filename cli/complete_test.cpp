#include "cli/complete.hpp"

#include <gtest/gtest.h>

#include "cli/test_app.hpp"
#include "refmodel/mutant.hpp"
#include "refmodel/profile.hpp"

namespace mwc::cli {
namespace {

// Returns the candidates `mwcheck __complete` prints for the words, the
// last one being completed.
std::vector<std::string> candidates(std::vector<std::string> words) {
  std::vector<std::string> args = {"__complete", std::to_string(words.size())};
  args.push_back("mwcheck");
  args.insert(args.end(), words.begin(), words.end() - 1);
  args.push_back(words.back());
  args[1] = std::to_string(words.size());
  const Ran r = mwcheck(args);
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool has(const std::vector<std::string>& v, const std::string& w) {
  return std::find(v.begin(), v.end(), w) != v.end();
}

TEST(Complete, VerbsFromTheApp) {
  const auto c = candidates({""});
  for (const char* v : {"run", "diff", "conform", "fuzz", "power", "record", "export", "replay", "gen"})
    EXPECT_TRUE(has(c, v)) << v;
  EXPECT_FALSE(has(c, "__complete"));
  EXPECT_EQ(candidates({"con"}), (std::vector<std::string>{"convert", "conform"}));  // as the app lists them
}

TEST(Complete, OptionsOfTheVerb) {
  const auto c = candidates({"conform", "--"});
  for (const char* o : {"--profile", "--corpus", "--device", "--baseline", "--shrink-seconds", "--help"})
    EXPECT_TRUE(has(c, o)) << o;
  EXPECT_FALSE(has(c, "--run-here"));  // hidden
  EXPECT_TRUE(has(candidates({"export", "--"}), "--no-python"));
}

TEST(Complete, ProfilesKnobsAndAlternatives) {
  auto c = candidates({"run", "--profile", ""});
  for (const auto& p : profile_descs()) EXPECT_TRUE(has(c, std::string(p.name)));
  c = candidates({"run", "-p", "rxe+"});
  for (const auto& k : knob_descs()) EXPECT_TRUE(has(c, "rxe+" + std::string(k.name) + "=")) << k.name;
  const KnobDesc& k = knob_descs()[0];
  c = candidates({"run", "-p", "rxe+" + std::string(k.name) + "="});
  ASSERT_EQ(c.size(), k.alts.size());
  for (const auto& a : k.alts) EXPECT_TRUE(has(c, "rxe+" + std::string(k.name) + "=" + std::string(a.name)));
}

TEST(Complete, BackendsMutantsAndDevices) {
  EXPECT_EQ(candidates({"diff", "-a", ""}), (std::vector<std::string>{"profile:", "mutant:", "device:"}));
  const auto c = candidates({"fuzz", "--against", "mutant:"});
  EXPECT_EQ(c.size(), mutant_descs().size());
  EXPECT_TRUE(has(c, "mutant:" + std::string(mutant_descs()[0].name)));
  EXPECT_TRUE(has(candidates({"diff", "-a", "device:s"}), "device:softroce"));
  EXPECT_TRUE(has(candidates({"conform", "--device", ""}), "softroce"));
  // conform judges by the normative profiles only.
  EXPECT_FALSE(has(candidates({"conform", "--against", ""}), "rxe"));
  EXPECT_TRUE(has(candidates({"conform", "--against", ""}), "ibta"));
}

TEST(Complete, FilesWherePathsGo) {
  EXPECT_EQ(candidates({"run", "tr"}), (std::vector<std::string>{":files"}));
  EXPECT_EQ(candidates({"conform", "--report", ""}), (std::vector<std::string>{":files"}));
  EXPECT_TRUE(candidates({"gen", "--ops", ""}).empty());  // a number
  EXPECT_EQ(candidates({"record", "-o", "x.mwt", "--", "./a"}), (std::vector<std::string>{":files"}));
}

TEST(Complete, ABadIndexIsBadInput) {
  EXPECT_EQ(mwcheck({"__complete", "x"}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"__complete"}).status, kExitBadInput);
}

}  // namespace
}  // namespace mwc::cli
