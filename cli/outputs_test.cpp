// Outputs are written atomically and only into folders that exist: a write
// that fails (here a file size limit, as a full disk would) leaves the old
// files whole and no temporary file, with exit 2 and a message; --report,
// --out, --witness-dir and export -o create only their last component.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/test_app.hpp"
#include "util/test_files.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;
using test::names;
using test::scratch;
using test::slurp;

std::string corpus() {
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  return (fs::path(src ? src : ".") / "corpus" / "conformance").string();
}

// Returns what `mwcheck ARGS...` printed to stderr and its status, run in a
// child process whose files may not grow past `limit` bytes.
Ran with_file_size_limit(const std::vector<std::string>& args, rlim_t limit) {
  int fd[2];
  if (pipe(fd) != 0) return {-1, "", "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG
    const rlimit lim{limit, limit};
    setrlimit(RLIMIT_FSIZE, &lim);
    const Ran r = mwcheck(args);
    if (write(fd[1], r.err.data(), r.err.size()) < 0) _exit(99);
    _exit(r.status);
  }
  close(fd[1]);
  std::string err;
  char buf[4096];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) > 0;) err.append(buf, static_cast<size_t>(n));
  close(fd[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, "", err};
}

constexpr const char* kTrace =
    "buf b0 len=4096\nalloc_pd p0\n"
    "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
    "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\n"
    "bind_mw q0 w0 mr=m0 addr=m0 len=64 access=REMOTE_READ => OK key=+1\n";

TEST(Outputs, AReportThatCannotBeWrittenLeavesTheOldPair) {
  const fs::path dir = scratch("outputs_report");
  std::ofstream(dir / "report.json") << "old json";
  std::ofstream(dir / "junit.xml") << "old junit";
  const Ran r = with_file_size_limit({"conform", "--corpus", corpus(), "--report", dir.string()}, 4096);
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find(dir.string() + ":1:1: error: cannot write the reports"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "report.json"), "old json");
  EXPECT_EQ(slurp(dir / "junit.xml"), "old junit");
  EXPECT_EQ(names(dir), (std::vector<std::string>{"junit.xml", "report.json"}));
  // Without the limit the pair is replaced.
  EXPECT_EQ(mwcheck({"conform", "--corpus", corpus(), "--report", dir.string()}).status, kExitOk);
  EXPECT_EQ(slurp(dir / "report.json").front(), '{');
  EXPECT_EQ(names(dir), (std::vector<std::string>{"junit.xml", "report.json"}));
}

TEST(Outputs, ATraceThatCannotBeWrittenLeavesTheOldFile) {
  const fs::path dir = scratch("outputs_convert");
  std::ofstream(dir / "in.mwt") << kTrace;
  std::ofstream(dir / "out.mwt") << "old";
  const Ran r = with_file_size_limit({"convert", (dir / "in.mwt").string(), (dir / "out.mwt").string()}, 100);
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("out.mwt:1:1: error: cannot write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("File too large"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "out.mwt"), "old");
  EXPECT_EQ(names(dir), (std::vector<std::string>{"in.mwt", "out.mwt"}));
}

TEST(Outputs, AnExportThatCannotBeWrittenLeavesTheOldSet) {
  const fs::path dir = scratch("outputs_export");
  std::ofstream(dir / "in.mwt") << kTrace;
  fs::create_directory(dir / "out");
  for (const char* f : {"repro.mwt", "repro.c", "test_repro.py"}) std::ofstream(dir / "out" / f) << "old";
  const Ran r = with_file_size_limit({"export", (dir / "in.mwt").string(), "-o", (dir / "out").string()}, 2000);
  EXPECT_EQ(r.status, kExitBadInput);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  for (const char* f : {"repro.mwt", "repro.c", "test_repro.py"}) EXPECT_EQ(slurp(dir / "out" / f), "old") << f;
  EXPECT_EQ(names(dir / "out"), (std::vector<std::string>{"repro.c", "repro.mwt", "test_repro.py"}));
}

TEST(Outputs, OnlyTheLastFolderIsCreated) {
  const fs::path dir = scratch("outputs_mkdir");
  std::ofstream(dir / "in.mwt") << kTrace;
  const std::string deep = (dir / "typo" / "out").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"conform", "--corpus", corpus(), "--report", deep},
        std::vector<std::string>{"fuzz", "-a", "verbs", "-a", "rxe", "--runs", "10", "--corpus", "none", "--out", deep},
        std::vector<std::string>{"export", (dir / "in.mwt").string(), "-o", deep}}) {
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << args[0];
    EXPECT_NE(r.err.find("does not exist"), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "typo")) << args[0];
  }
  EXPECT_EQ(mwcheck({"conform", "--corpus", corpus(), "--report", (dir / "report").string()}).status, kExitOk);
  EXPECT_TRUE(fs::exists(dir / "report" / "report.json"));
}

}  // namespace
}  // namespace mwc::cli
