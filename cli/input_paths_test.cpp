// Every verb that reads a path refuses what is no trace, log or report
// file, with status 2 and FILE:LINE:COL: error:, in bounded memory and
// without waiting: a folder, a missing file, a device without end, a FIFO
// nobody writes, a line or a file beyond its documented limit. And gen
// refuses what it cannot write. CI runs this under ASan too.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include <gtest/gtest.h>

#include "cli/test_app.hpp"
#include "util/test_files.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

// The bad inputs, each a path.
struct Bad {
  std::string what, path;
};

std::vector<Bad> bad_inputs() {
  const fs::path dir = test::scratch("input_paths");
  const fs::path fifo = dir / "fifo.mwt";
  mkfifo(fifo.c_str(), 0600);
  const std::string long_line = test::write_temp("input_paths_long.mwt", "alloc_pd p0\n" + std::string(70000, 'x') + "\n");
  // A binary trace over the 64 MiB limit: sparse, so the test writes 4 bytes.
  const std::string big = (dir / "big.mwb").string();
  const int fd = open(big.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  EXPECT_EQ(write(fd, "MWTB", 4), 4);
  EXPECT_EQ(ftruncate(fd, (64 << 20) + 1), 0);
  close(fd);
  return {{"a folder", dir.string()},
          {"a missing file", (dir / "missing.mwt").string()},
          {"a device without end", "/dev/zero"},
          {"a FIFO nobody writes", fifo.string()},
          {"a line over 64 KiB", long_line},
          {"a binary trace over 64 MiB", big}};
}

// Returns whether `err` starts with PATH:LINE:COL: error:.
bool placed(const std::string& err, const std::string& path) {
  if (!err.starts_with(path + ":")) return false;
  static const std::regex where(R"(^:\d+:\d+: error: )");
  return std::regex_search(err.substr(path.size()), where);
}

TEST(InputPaths, EveryVerbThatReadsAFileRefusesWhatIsNone) {
  const std::string out = (test::scratch("input_paths_out") / "o").string();
  for (const Bad& b : bad_inputs()) {
    const std::vector<std::vector<std::string>> commands = {
        {"run", b.path},
        {"run", "--check", "--quiet", b.path},
        {"diff", "-a", "profile:rxe", "-a", "profile:verbs", b.path},
        {"convert", b.path, out + ".mwt"},
        {"export", b.path, "-o", out},
        {"record", "--from-log", b.path, "-o", out + ".mwt"},
        {"export", "F00000000", "--from", b.path, "-o", out},
        {"conform", "--device", "nodev0", "--baseline", b.path},
    };
    for (const auto& args : commands) {
      // The FIFO is a fine, empty input for a trace (no ops): only reports and logs refuse it.
      const Ran r = mwcheck(args);
      if (b.what == "a FIFO nobody writes" && (args[0] == "run" || args[0] == "diff" || args[0] == "convert" ||
                                               (args[0] == "export" && args[1] == b.path))) {
        EXPECT_NE(r.status, 134) << args[0];
        continue;
      }
      EXPECT_EQ(r.status, kExitBadInput) << b.what << ": " << args[0] << " " << args[1] << "\n" << r.err;
      // export --from takes a report's folder too: the report.json in it is named.
      const bool report_in_folder = b.what == "a folder" && args[1] == "F00000000";
      EXPECT_TRUE(placed(r.err, report_in_folder ? b.path + "/report.json" : b.path))
          << b.what << ": " << args[0] << "\n" << r.err;
    }
  }
}

TEST(InputPaths, ReplayRefusesAFolderAndAnEndlessDevice) {
  for (const std::string& p : {test::scratch("input_paths_replay").string(), std::string("/dev/zero")}) {
    const Ran r = mwcheck({"replay", "--quiet", p});
    EXPECT_EQ(r.status, kExitBadInput) << r.err;
    EXPECT_TRUE(placed(r.err, p)) << r.err;
  }
}

TEST(InputPaths, ACorpusMustBeAFolderOfTraces) {
  for (const std::string verb : {"conform", "fuzz", "power"}) {
    std::vector<std::string> args = {verb, "--corpus", "/dev/zero"};
    if (verb == "fuzz") args.insert(args.end(), {"-a", "profile:rxe", "-a", "profile:verbs", "--runs", "1"});
    if (verb == "power") args.insert(args.end(), {"--seeds", "1", "--budget", "0.01", "--mutant", "stale_rkey"});
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << verb << "\n" << r.err;
    EXPECT_NE(r.err.find("/dev/zero:1:1: error: "), std::string::npos) << verb << "\n" << r.err;
  }
}

// `-` is standard input wherever a trace is read, from a file (`< t.mwt`)
// or a pipe, and standard output where convert writes one; a bad trace
// there is placed at `-`. record's standard output is its account, and
// standard input can be read once: both say so.
TEST(InputPaths, StandardInputIsATraceWhereverOneIsRead) {
  const std::string text = "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096\n";
  const std::string run_out = mwcheck({"run", test::write_temp("input_paths_stdin.mwt", text)}).out;
  ASSERT_NE(run_out.find("reg_mr m0 pd=p0 addr=b0 len=4096 => OK"), std::string::npos) << run_out;
  for (const Stdin how : {Stdin::file, Stdin::pipe}) {
    Ran r = mwcheck_reading(text, how, {"run", "-"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, run_out);
    r = mwcheck_reading(text, how, {"diff", "-a", "profile:rxe", "-a", "profile:verbs", "-"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("-: same outcomes (3 ops)"), std::string::npos) << r.out;
    // Text in, binary out, and back: the same trace.
    r = mwcheck_reading(text, how, {"convert", "-", "-", "--binary"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("MWTB")) << r.out;
    const Ran back = mwcheck_reading(r.out, how, {"convert", "-", "-"});
    EXPECT_EQ(back.status, 0) << back.err;
    EXPECT_EQ(back.out, text);
    const fs::path dir = test::scratch("input_paths_stdin_export");
    r = mwcheck_reading(text, how, {"export", "-", "-o", dir.string()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "repro.c")) << r.out << r.err;
    r = mwcheck_reading("alloc_pd p0\nfrob p0\n", how, {"run", "-"});
    EXPECT_EQ(r.status, kExitBadInput);
    EXPECT_EQ(r.err, "-:2:1: error: unknown op 'frob'\n");
  }
  // A file named - is ./-.
  const std::string file = test::write_temp("input_paths_stdin_file.mwt", text);
  EXPECT_EQ(mwcheck({"convert", file, "-"}).out, text);
  Ran r = mwcheck_reading(text, Stdin::file, {"run", "-", "-"});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_EQ(r.err, "-:1:1: error: standard input is named twice, and can be read only once\n");
  EXPECT_EQ(r.out, "");
  r = mwcheck({"record", "--from-log", file, "-o", "-"});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("-o -: record says what it recorded on standard output"), std::string::npos) << r.err;
  r = mwcheck({"record", "--log", "-", "-o", "t.mwt", "--", "true"});
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("--log -: record says"), std::string::npos) << r.err;
  // No folder is called - either (./- is one).
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"export", file, "-o", "-"}, {"conform", "--report", "-"},
        {"prove", "--witness-dir", "-"}, {"fuzz", "-a", "profile:rxe", "-a", "profile:verbs", "--out", "-"}}) {
    r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << args[0];
    EXPECT_TRUE(r.err.starts_with("-:1:1: error: ")) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("- is standard output, which holds no folder"), std::string::npos) << args[0] << ": " << r.err;
  }
}

// A run in the Soft-RoCE VM checks its files here first: what cannot be
// read is said in its place, every one, and nothing is packed or booted.
TEST(InputPaths, ARunInTheVmSaysWhatItCannotReadBeforeAnyBoot) {
  const fs::path dir = test::scratch("input_paths_vm");
  const std::string missing = (dir / "missing.mwt").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--device", "softroce", missing, dir.string(), "/dev/zero"},
        {"diff", "-a", "device:softroce", "-a", "profile:rxe", missing, dir.string(), "/dev/zero"}}) {
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << args[0];
    EXPECT_EQ(r.err, missing + ":1:1: error: cannot open: No such file or directory\n" + dir.string() +
                         ":1:1: error: is a folder, not a file\n/dev/zero:1:65537: error: line longer than the "
                         "limit of 64 KiB\n")
        << args[0];
    EXPECT_EQ(r.out, "") << args[0];
  }
}

// A trace the guest would refuse is refused here, in its place and with
// the user's name for it, before a boot: a typo costs no boot.
TEST(InputPaths, ARunInTheVmSaysWhereATraceDoesNotParseBeforeAnyBoot) {
  const std::string good = test::write_temp("input_paths_vm_good.mwt", "alloc_pd p0\n");
  const std::string typo = test::write_temp("input_paths_vm_typo.mwt", "alloc_pd p0\nfrob p0\n");
  const std::string cut = test::write_temp("input_paths_vm_cut.mwb", "MWTB");
  const std::string expected = typo + ":2:1: error: unknown op 'frob'\n" + cut +
                               ":1:1: error: truncated: a .mwb file starts with a 32-byte header\n"
                               "-:1:13: error: unexpected 'p1' (fields are name=value)\n";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--check", "--device", "softroce", good, typo, cut, "-"},
        {"diff", "-a", "profile:rxe", "-a", "device:softroce", good, typo, cut, "-"}}) {
    const Ran r = mwcheck_reading("alloc_pd p0 p1\n", Stdin::pipe, args);
    EXPECT_EQ(r.status, kExitBadInput) << args[0];
    EXPECT_EQ(r.err, expected) << args[0];
    EXPECT_EQ(r.out, "") << args[0];
  }
}

TEST(InputPaths, GenRefusesWhatItCannotWrite) {
  for (const std::string& p : {std::string("/dev/full"), std::string("/nonexistent/x.mwb"),
                              test::scratch("input_paths_gen").string()}) {
    const Ran r = mwcheck({"gen", "-n", "1000", "-o", p});
    EXPECT_EQ(r.status, kExitBadInput) << p << "\n" << r.err;
    EXPECT_TRUE(placed(r.err, p)) << r.err;
  }
}

}  // namespace
}  // namespace mwc::cli
