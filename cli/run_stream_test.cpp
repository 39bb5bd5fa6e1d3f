#include "cli/run_stream.hpp"

#include <sstream>

#include <gtest/gtest.h>

#include "adapters/model_backend.hpp"
#include "cli/load.hpp"
#include "cli/test_app.hpp"
#include "compare/annotate.hpp"
#include "compare/expectations.hpp"
#include "refmodel/text_codec.hpp"
#include "util/test_files.hpp"

namespace mwc::cli {
namespace {

// What run prints for the whole trace held in memory, and its mismatch lines.
std::pair<std::string, std::string> whole(const std::string& path, Backend& b) {
  std::ostringstream err;
  const auto t = load_trace(path, err);
  EXPECT_TRUE(t) << err.str();
  std::vector<Outcome> outcomes;
  b.run(*t, outcomes);
  std::string lines;
  for (const auto& m : check_expectations(path, *t, outcomes, b.expectation_column())) lines += mismatch_line(m, b.name());
  return {annotate(*t, outcomes, b.expectation_column(), b.name()), lines};
}

TEST(RunStream, APieceByPieceRunPrintsWhatTheWholeRunPrints) {
  // About 10 MB of text: several pieces, objects named across them, and
  // ops made to fail (expectations of every profile: the rxe model judged
  // by rxe's column mismatches none, the verbs model judged so some).
  const std::string path = (test::scratch("run_stream") / "big.mwt").string();
  const Ran g = mwcheck({"gen", "--ops", "300000", "--seed", "3", "--errors", "50", "-o", path});
  ASSERT_EQ(g.status, 0) << g.err;
  for (const auto& spec : {std::pair{profile(ProfileId::rxe), Mutant::none},
                           std::pair{profile(ProfileId::verbs), Mutant::none}}) {
    ModelBackend a(spec.first, static_cast<int>(ProfileId::rxe)), b(spec.first, static_cast<int>(ProfileId::rxe));
    const auto [text, lines] = whole(path, a);
    ASSERT_TRUE(can_stream(path, b));
    std::ostringstream out, err;
    size_t mismatches = 0;
    ASSERT_TRUE(run_streamed(path, b, true, false, mismatches, out, err)) << err.str();
    EXPECT_TRUE(out.str() == text) << "the streamed run prints otherwise (" << out.str().size() << " vs "
                                   << text.size() << " bytes)";
    EXPECT_EQ(err.str(), lines);
    EXPECT_EQ(mismatches == 0, spec.first.name == "rxe") << mismatches;
  }
}

TEST(RunStream, AnErrorInALaterPieceNamesItsLineInTheFile) {
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "alloc_pd p0 => OK\ndealloc_pd p0 => OK\n";
  text += "frob p0\n";
  const std::string path = test::write_temp("run_stream_bad.mwt", text);
  ModelBackend b(profile(ProfileId::verbs), static_cast<int>(ProfileId::verbs));
  std::ostringstream out, err;
  size_t mismatches = 0;
  EXPECT_FALSE(run_streamed(path, b, true, false, mismatches, out, err));
  EXPECT_EQ(err.str(), path + ":400001:1: error: unknown op 'frob'\n");
  EXPECT_TRUE(out.str().empty());  // the first pass finds it: nothing was run
}

TEST(RunStream, OnlyTextFilesOnTheModelStream) {
  ModelBackend b(profile(ProfileId::verbs), static_cast<int>(ProfileId::verbs));
  EXPECT_FALSE(can_stream("/dev/zero", b));
  EXPECT_FALSE(can_stream(test::write_temp("run_stream.mwb", "MWTB"), b));
  EXPECT_FALSE(can_stream(test::write_temp("run_stream_magic.mwt", "MWTB\x03"), b));
  EXPECT_TRUE(can_stream(test::write_temp("run_stream.mwt", "alloc_pd p0\n"), b));
}

}  // namespace
}  // namespace mwc::cli
