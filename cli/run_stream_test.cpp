#include "cli/run_stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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
namespace fs = std::filesystem;

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

TEST(RunStream, AnInputReadOnceRunsInOnePassAndPrintsWhatTheFileRunPrints) {
  // About 10 MB: pieces that name objects the ones before did not (the
  // tables grow), ops made to fail, checked under two profiles (one with
  // mismatches); from a
  // redirected file, a FIFO and, in .mwb, standard input (loaded whole).
  const fs::path dir = test::scratch("run_stream_once");
  const std::string path = (dir / "big.mwt").string(), bin = (dir / "big.mwb").string();
  // Expectations of verbs alone: rxe's model mismatches some.
  ASSERT_EQ(mwcheck({"gen", "--ops", "300000", "--seed", "4", "--errors", "50", "--expect", "verbs", "-o", path}).status,
            0);
  ASSERT_EQ(mwcheck({"convert", path, bin}).status, 0);
  const std::string text = test::slurp(path), binary = test::slurp(bin);
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const char* p : {"rxe", "verbs"}) {
    const Ran file = mwcheck({"run", "--check", "--profile", p, path});
    ASSERT_EQ(file.status, std::string(p) == "rxe" ? 1 : 0) << file.err.substr(0, 300);
    // Mismatches name the input as given: the file, or - for standard input.
    const auto named = [&](const std::string& err, const std::string& as) {
      std::string r;
      size_t from = 0;
      for (size_t at; (at = err.find(path, from)) != std::string::npos; from = at + path.size())
        r.append(err, from, at - from).append(as);
      return r.append(err, from);
    };
    const Ran in = mwcheck_reading(text, Stdin::file, {"run", "--check", "--profile", p, "-"});
    EXPECT_EQ(in.status, file.status) << p;
    EXPECT_TRUE(in.out == file.out) << p << ": " << in.out.size() << " vs " << file.out.size() << " bytes";
    EXPECT_TRUE(in.err == named(file.err, "-")) << p << ": " << in.err.substr(0, 300);
    // The write end is open before run opens the FIFO (a FIFO nobody
    // writes reads as empty): a reader that never reads lets it open at once.
    const int keep = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK), w = ::open(fifo.c_str(), O_WRONLY);
    ASSERT_TRUE(keep >= 0 && w >= 0);
    std::thread writer([&] {
      for (size_t at = 0; at < text.size();) {
        const ssize_t n = ::write(w, text.data() + at, text.size() - at);
        if (n <= 0) break;
        at += static_cast<size_t>(n);
      }
      ::close(w);
    });
    const Ran f = mwcheck({"run", "--check", "--profile", p, fifo});
    writer.join();
    ::close(keep);
    EXPECT_EQ(f.status, file.status) << p;
    EXPECT_TRUE(f.out == file.out) << p;
    EXPECT_TRUE(f.err == named(file.err, fifo)) << p << ": " << f.err.substr(0, 300);
    const Ran b = mwcheck_reading(binary, Stdin::file, {"run", "--check", "--profile", p, "-"});
    EXPECT_EQ(b.status, file.status) << p;
    EXPECT_TRUE(b.out == file.out) << p;
  }
}

TEST(RunStream, AnErrorInALaterPieceOfStandardInputComesAfterThePiecesBefore) {
  // Read once, a piece runs before the next is read: what came before the
  // error was printed (a file is read through first, and prints nothing).
  std::string text;
  for (int i = 0; i < 200000; ++i) text += "alloc_pd p0 => OK\ndealloc_pd p0 => OK\n";
  text += "frob p0\n";
  const Ran r = mwcheck_reading(text, Stdin::file, {"run", "--check", "-"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "-:400001:1: error: unknown op 'frob'\n");
  EXPECT_TRUE(r.out.starts_with("alloc_pd p0 => OK\n")) << r.out.substr(0, 100);
  // A line over the limit, and nothing at all.
  const Ran long_line = mwcheck_reading("alloc_pd p0\n# " + std::string(70000, 'x') + "\n", Stdin::file, {"run", "-"});
  EXPECT_EQ(long_line.status, 2);
  EXPECT_TRUE(long_line.err.starts_with("-:2:65537: error: line longer than the limit")) << long_line.err;
  const Ran empty = mwcheck_reading("", Stdin::pipe, {"run", "-"});
  EXPECT_EQ(empty.status, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
  const Ran magic_only = mwcheck_reading("MWT", Stdin::pipe, {"run", "-"});
  EXPECT_EQ(magic_only.status, 2);
  EXPECT_TRUE(magic_only.err.starts_with("-:1:1: error: ")) << magic_only.err;
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
