// mwcheck replay and mwcheck gen, driven as the program is.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;


std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("mwcheck_replay_app_test_" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> corpus_files() {
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(src ? src : ".") / "corpus" / "conformance"))
    if (e.path().extension() == ".mwt") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Returns the lines of `text` that contain `what`.
std::vector<std::string> lines_with(const std::string& text, const std::string& what) {
  std::vector<std::string> r;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find(what) != std::string::npos) r.push_back(l);
  return r;
}

// The corpus, converted to .mwb, through replay and through run --check:
// the same mismatches, line for line, and the same exit status, under every
// profile and two knob-adjusted ones (which do mismatch).
TEST(ReplayApp, CorpusVerdictsAreRunsVerdicts) {
  const auto files = corpus_files();
  ASSERT_GE(files.size(), 40u);
  std::vector<std::string> mwbs;
  for (const auto& f : files) {
    mwbs.push_back(temp(fs::path(f).stem().string() + ".mwb"));
    ASSERT_EQ(mwcheck({"convert", f, mwbs.back()}).status, 0) << f;
  }
  size_t mismatches = 0;
  for (const std::string profile :
       {"ibta", "verbs", "det", "rxe", "mlx5", "verbs+remote_range=mr_only", "rxe+bind_errors=immediate",
        "rxe@6.12"}) {
    std::vector<std::string> run_args{"run", "--check", "--quiet", "--profile", profile};
    std::vector<std::string> replay_args{"replay", "--quiet", "--profile", profile};
    run_args.insert(run_args.end(), mwbs.begin(), mwbs.end());
    replay_args.insert(replay_args.end(), mwbs.begin(), mwbs.end());
    const Ran run = mwcheck(run_args);
    for (const std::string threads : {"1", "2"}) {
      auto args = replay_args;
      args.insert(args.begin() + 1, {"--threads", threads});
      const Ran replay = mwcheck(args);
      EXPECT_EQ(replay.status, run.status) << profile << replay.err;
      EXPECT_EQ(lines_with(replay.out, ": mismatch under "), lines_with(run.err, ": mismatch under "))
          << profile;
      EXPECT_EQ(lines_with(replay.out, " ops, ").size(), files.size());
      EXPECT_EQ(replay.err, "");
    }
    mismatches += lines_with(run.err, ": mismatch under ").size();
  }
  EXPECT_GT(mismatches, 0u);
}

TEST(ReplayApp, BadInputExitsTwoNamingTheFile) {
  const Ran missing = mwcheck({"replay", "/nonexistent/x.mwb"});
  EXPECT_EQ(missing.status, kExitBadInput);
  EXPECT_NE(missing.err.find("/nonexistent/x.mwb:1:1: error: cannot open"), std::string::npos);
  const std::string text = temp("text.mwb");
  std::ofstream(text) << "alloc_pd p0\nalloc_pd p1\nalloc_pd p2\nalloc_pd p3\n";
  const Ran r = mwcheck({"replay", text});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find(text + ":1:1: error: not an mwcheck binary trace"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("it reads as a text trace, which `mwcheck convert` makes a .mwb of"), std::string::npos)
      << r.err;
  EXPECT_EQ(mwcheck({"replay", "--profile", "nosuch", text}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"replay", "--threads", "0", text}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"gen", "--mix", "peer_write=x", "-o", temp("x.mwb")}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"gen", "--mix", "nosuch=1", "-o", temp("x.mwb")}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"gen", "--expect", "nosuch", "-o", temp("x.mwb")}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"gen", "-o", "/nonexistent/x.mwb"}).status, kExitBadInput);
}

TEST(ReplayApp, GenIsDeterministicAndItsTracesPassEveryProfile) {
  const std::string a = temp("gen_a.mwb"), b = temp("gen_b.mwb"), c = temp("gen_c.mwb");
  const std::vector<std::string> small{"--pds", "4", "--mrs", "16", "--mws", "64", "--qps", "2"};
  auto gen = [&](const std::string& seed, const std::string& out) {
    std::vector<std::string> args{"gen", "--ops", "30000", "--seed", seed, "-o", out};
    args.insert(args.end(), small.begin(), small.end());
    return mwcheck(args).status;
  };
  ASSERT_EQ(gen("5", a), 0);
  ASSERT_EQ(gen("5", b), 0);
  ASSERT_EQ(gen("6", c), 0);
  EXPECT_EQ(slurp(a), slurp(b));
  EXPECT_NE(slurp(a), slurp(c));
  for (const std::string profile : {"ibta", "verbs", "det", "rxe", "mlx5"}) {
    for (const std::string threads : {"1", "2"}) {
      const Ran r = mwcheck({"replay", "--quiet", "--threads", threads, "--profile", profile, a});
      EXPECT_EQ(r.status, 0) << profile << r.out;
      EXPECT_NE(r.out.find("30000 ops, 30000 checked, 0 mismatches"), std::string::npos) << r.out;
    }
  }
  // The text form is the same trace, and run agrees with it.
  const std::string t = temp("gen_a.mwt");
  std::vector<std::string> args{"gen", "--ops", "30000", "--seed", "5", "-o", t};
  args.insert(args.end(), small.begin(), small.end());
  ASSERT_EQ(mwcheck(args).status, 0);
  EXPECT_EQ(mwcheck({"run", "--check", "--quiet", "--profile", "det", t}).status, 0);
  const std::string back = temp("gen_back.mwt");
  ASSERT_EQ(mwcheck({"convert", a, back}).status, 0);
  EXPECT_EQ(slurp(back), slurp(t));
  // A realistic mix: mostly remote reads and writes, and some errors.
  const std::string text = slurp(t);
  const size_t remote = lines_with(text, "peer_read ").size() + lines_with(text, "peer_write ").size();
  EXPECT_GT(remote, 30000u * 6 / 10);
  EXPECT_GT(lines_with(text, "=> IBV_WC_REM_ACCESS_ERR").size(), 10u);
  EXPECT_GT(lines_with(text, "bind_mw ").size(), 100u);
  // Under a profile whose outcomes differ, replay finds the differences.
  const Ran adjusted = mwcheck({"replay", "--quiet", "--profile", "verbs+dereg_bound=allowed", a});
  EXPECT_EQ(adjusted.status, kExitFail) << adjusted.out;
}

// gen --shards 2 writes the same trace split by PD into FILE.0.mwb and
// FILE.1.mwb; replayed together on two threads they pass, op for op.
TEST(ReplayApp, GenShardsReplayTogether) {
  const std::string base = temp("gen_sharded.mwb");
  const Ran gen = mwcheck(
      {"gen", "--ops", "20000", "--pds", "4", "--mrs", "16", "--mws", "64", "--shards", "2", "-o", base});
  ASSERT_EQ(gen.status, 0) << gen.err;
  const std::string s0 = temp("gen_sharded.0.mwb"), s1 = temp("gen_sharded.1.mwb");
  const Ran r = mwcheck({"replay", "--threads", "2", s0, s1});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const auto ops = [&](const std::string& path) {
    const auto lines = lines_with(r.out, path + ": ");
    return lines.empty() ? 0ul : std::stoul(lines[0].substr(path.size() + 2));
  };
  EXPECT_EQ(ops(s0) + ops(s1), 20000u) << r.out;
  EXPECT_GT(ops(s0), 5000u) << r.out;
  EXPECT_GT(ops(s1), 5000u) << r.out;
  EXPECT_NE(r.err.find("2 files: 20000 ops"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("on 2 thread(s)"), std::string::npos) << r.err;
  // Four threads for two files: each gets a thread reading ahead.
  const Ran four = mwcheck({"replay", "--threads", "4", s0, s1});
  EXPECT_EQ(four.status, 0) << four.err;
  EXPECT_EQ(four.out, r.out);
  EXPECT_NE(four.err.find("on 4 thread(s)"), std::string::npos) << four.err;
  EXPECT_EQ(mwcheck({"gen", "--ops", "10", "--shards", "2", "-o", "-"}).status, kExitBadInput);
  EXPECT_EQ(mwcheck({"gen", "--ops", "10", "--pds", "2", "--shards", "3", "-o", base}).status,
            kExitBadInput);
}

// The figures go to standard error (and into --json): the time, ops/s,
// bytes/op, and whether a thread read the file ahead, which --quiet leaves
// out. Whether one did depends on the machine's pace: either answer is right.
TEST(ReplayApp, FiguresSayWhetherAThreadReadAhead) {
  const std::string t = temp("figures.mwb");
  ASSERT_EQ(mwcheck({"gen", "--ops", "20000", "-o", t}).status, 0);
  const Ran r = mwcheck({"replay", "-j", "2", t});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = lines_with(r.err, " bytes/op");
  ASSERT_EQ(lines.size(), 1u) << r.err;
  const std::string& l = lines[0];
  const size_t end = l.find(" bytes/op");
  EXPECT_TRUE(end + 9 == l.size() || l.substr(end + 9) == ", a thread reading ahead") << l;
  const Ran j = mwcheck({"replay", "-j", "2", "--json", t});
  EXPECT_EQ(j.status, 0) << j.err;
  EXPECT_NE(j.out.find("\"read_ahead\":"), std::string::npos) << j.out;
  const Ran q = mwcheck({"replay", "-j", "2", "--json", "--quiet", t});
  EXPECT_EQ(q.out.find("read_ahead"), std::string::npos) << q.out;
}

// A .mwb file cut short (a killed `gen`) is an error naming the file and
// the byte where it ends, in replay, run --check and convert alike.
TEST(ReplayApp, TruncatedTracesAreErrorsEverywhere) {
  const std::string whole = temp("whole.mwb"), cut = temp("cut.mwb");
  ASSERT_EQ(mwcheck({"gen", "--ops", "5000", "--pds", "2", "--mrs", "4", "--mws", "8", "-o", whole}).status, 0);
  const std::string bytes = slurp(whole);
  ASSERT_EQ(mwcheck({"replay", "--quiet", whole}).status, 0);
  for (const size_t keep : {bytes.size() / 2, bytes.size() - 1, size_t{40}}) {
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, keep);
    const std::string where = cut + ":1:" + std::to_string(keep + 1) + ": error: truncated at byte " +
                              std::to_string(keep);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"replay", "--quiet", cut}, {"run", "--check", "--quiet", cut}, {"convert", cut, temp("cut.mwt")}}) {
      const Ran r = mwcheck(args);
      EXPECT_EQ(r.status, kExitBadInput) << args[0] << " " << keep;
      EXPECT_NE(r.err.find(where), std::string::npos) << args[0] << ": " << r.err;
      EXPECT_EQ(lines_with(r.out, " ops, ").size(), 0u) << "no verdicts for a file cut short";
    }
  }
}

// gen checks every option before it touches the output, and writes a new
// file beside it, renamed into place when whole: a refused run keeps the
// old file, a finished one leaves no temporary file behind.
TEST(ReplayApp, GenKeepsTheOldFileUntilTheNewOneIsWhole) {
  const fs::path dir = temp("gen_dir");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string old = (dir / "old.mwb").string();
  std::ofstream(old) << "what was there";
  for (const auto& bad : std::vector<std::vector<std::string>>{
           {"--pds", "0"}, {"--mix", "nosuch=1"}, {"--expect", "nosuch"}, {"--mrs", "70000"},
           {"--pds", "2", "--shards", "3"}}) {
    std::vector<std::string> args{"gen", "--ops", "10", "-o", old};
    args.insert(args.end(), bad.begin(), bad.end());
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << bad[0];
    EXPECT_FALSE(r.err.empty()) << bad[0];  // the option's own check, or gen's
    EXPECT_EQ(slurp(old), "what was there") << bad[0];
  }
  ASSERT_EQ(mwcheck({"gen", "--ops", "100", "-o", old}).status, 0);
  EXPECT_EQ(slurp(old).substr(0, 4), "MWTB");
  ASSERT_EQ(mwcheck({"gen", "--ops", "100", "--shards", "2", "-o", old}).status, 0);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"old.0.mwb", "old.1.mwb", "old.mwb"}));
  // A device is written as it is, never replaced.
  EXPECT_EQ(mwcheck({"gen", "--ops", "10", "-o", "/dev/null"}).status, 0);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

// A trace of no ops replays, on any number of threads.
TEST(ReplayApp, EmptyTracesReplayOnThreads) {
  const std::string z = temp("zero.mwb");
  ASSERT_EQ(mwcheck({"gen", "--ops", "0", "-o", z}).status, 0);
  for (const std::string threads : {"1", "2"}) {
    const Ran r = mwcheck({"replay", "--quiet", "--threads", threads, z, z});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(lines_with(r.out, ": 0 ops, 0 checked, 0 mismatches").size(), 2u) << r.out;
  }
}

// `mwcheck replay - < f.mwb`: standard input from a regular file replays as
// from a pipe.
TEST(ReplayApp, ReplaysStandardInputFromAFile) {
  const std::string f = temp("stdin.mwb");
  ASSERT_EQ(mwcheck({"gen", "--ops", "3000", "--pds", "2", "--mrs", "4", "--mws", "8", "-o", f}).status, 0);
  const Ran r = mwcheck_reading(test::slurp(f), Stdin::file, {"replay", "--quiet", "-"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("-: 3000 ops, 3000 checked, 0 mismatches"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace mwc::cli
