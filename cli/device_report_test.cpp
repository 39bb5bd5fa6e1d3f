// junit.xml of conform --device as CI dashboards read it: crashes and
// hangs are <error>, other findings <failure>, unsupported features
// <skipped>; classnames without spaces or stray dots; times everywhere.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/device_report.hpp"
#include "exports/export.hpp"
#include "findings/judge.hpp"
#include "util/test_files.hpp"

namespace mwc::cli {
namespace {
using namespace mwc::findings;
namespace fs = std::filesystem;
using test::scratch;
using test::slurp;
void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

// A shrinking cut short by its time says how many reproducers are
// 1-minimal and what to give; one that finished, or stopped for another
// reason, says nothing more.
TEST(DeviceReport, ShrinkingOutOfTimeSaysSo) {
  std::vector<Finding> fs(3);
  fs[0].minimal = true;
  fs[1].shrink_note = "the finding did not show again on the device";
  fs[2].shrink_note = "the time for shrinking ran out before this finding's turn";
  std::vector<Finding*> all{&fs[0], &fs[1], &fs[2]};
  EXPECT_EQ(unfinished_line("device:softroce", all, 150),
            "device:softroce: 1 of 3 reproducers shown 1-minimal; the time for shrinking (150 s) ran out for 1: "
            "give it more with --shrink-seconds\n");
  fs[2].minimal = true;
  EXPECT_EQ(unfinished_line("device:softroce", all, 150), "");
}

// What was not run is counted by whose lack it is, so that a limit of
// the harness or of libibverbs is never counted as the device's.
TEST(DeviceReport, TheCountLineSaysWhoseLackEachUnrunOpIs) {
  std::vector<Finding> fs(4);
  fs[0].severity = Severity::security;
  for (size_t i = 1; i < fs.size(); ++i) {
    fs[i].severity = Severity::unsupported;
    fs[i].reproducer.ops.resize(1);
  }
  fs[1].seen.ret = Result::kEOPNOTSUPP, fs[1].reproducer.ops[0].code = OpCode::rereg_mr;
  fs[2].seen.ret = Result::kUNSUPPORTED, fs[2].reproducer.ops[0].code = OpCode::det_bind;
  fs[3].seen.ret = Result::kUNSUPPORTED, fs[3].reproducer.ops[0].code = OpCode::peer_write;
  EXPECT_EQ(counts_line(fs),
            "1 finding (1 security, 0 crash, 0 hang, 0 conformance); not run, listed apart: 1 verb or state "
            "the device lacks, 1 verb libibverbs lacks, 1 op beyond mwcheck's device session");
  fs[1] = fs[3];
  fs.erase(fs.begin() + 2);
  EXPECT_EQ(counts_line(fs),
            "1 finding (1 security, 0 crash, 0 hang, 0 conformance); not run, listed apart: 2 ops beyond "
            "mwcheck's device session");
  fs.resize(1);
  EXPECT_EQ(counts_line(fs), "1 finding (1 security, 0 crash, 0 hang, 0 conformance); nothing unsupported");
}

TEST(DeviceJunit, CrashesAndHangsAreErrors) {
  std::vector<DeviceColumn> cols(1);
  cols[0].label = "softroce 6.1.0-28-amd64";
  std::vector<DeviceJudgment> judged(1);
  judged[0].symptoms.resize(3);
  const std::vector<CorpusTrace> corpus;
  std::vector<Finding> fs;
  for (Severity s : {Severity::security, Severity::crash, Severity::hang, Severity::conformance,
                     Severity::unsupported}) {
    Finding f;
    f.id = "F0000000" + std::to_string(static_cast<int>(s));
    f.severity = s;
    f.summary = std::string(name(s)) + " <here>";
    f.devices = {cols[0].label};
    fs.push_back(f);
  }
  unsetenv("SOURCE_DATE_EPOCH");
  const Report r{cols, judged, corpus, fs, {}, {}, {12.5}};
  const std::string x = device_junit(r);
  EXPECT_EQ(count(x, "<error "), 2u) << x;
  EXPECT_EQ(count(x, "<failure "), 2u) << x;
  EXPECT_EQ(count(x, "<skipped "), 1u) << x;
  EXPECT_NE(x.find("tests=\"6\" failures=\"2\" errors=\"2\" skipped=\"1\" time=\"12.500\""), std::string::npos) << x;
  EXPECT_NE(x.find("classname=\"findings.softroce_6_1_0-28-amd64\""), std::string::npos) << x;
  EXPECT_EQ(x.find("classname=\"findings.softroce 6"), std::string::npos) << x;
  EXPECT_NE(x.find("&lt;here&gt;"), std::string::npos) << x;
  // Under SOURCE_DATE_EPOCH the same bytes every run: no measured time.
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  const std::string y = device_junit(r);
  unsetenv("SOURCE_DATE_EPOCH");
  EXPECT_EQ(y.find("time=\"12.500\""), std::string::npos) << y;
  EXPECT_NE(y.find("time=\"0\""), std::string::npos) << y;
}

// What the kernel reported shows with the finding of its trace, and, for
// a trace that shows none, in a list of its own; report.json has it per
// trace, and report.html with the finding.
TEST(DeviceReport, WhatTheKernelReportedIsShownWhereItBelongs) {
  std::vector<DeviceColumn> cols(1);
  cols[0].label = "softroce 6.1.0-56-amd64";
  cols[0].traces = {{"038_type2_destroy_qp.mwt", {}, "", "WARNING: at rxe_pool.c:255 __rxe_cleanup+0x118/0x160\n"},
                    {"001_resources_basic.mwt", {}, "", "WARNING: at rxe_qp.c:1 elsewhere+0x1/0x2\n"},
                    {"002_quiet.mwt", {}, "", ""}};
  const std::vector<CorpusTrace> corpus = {{"038_type2_destroy_qp.mwt", {}}, {"001_resources_basic.mwt", {}},
                                            {"002_quiet.mwt", {}}};
  std::vector<DeviceJudgment> judged = {judge_device(cols[0], corpus, default_yardsticks())};
  judged[0].symptoms[0].verdict = Verdict::finding;
  judged[0].symptoms[0].key = "hang|destroy_qp";
  Finding f;
  f.id = "F262880bf";
  f.severity = Severity::hang;
  f.summary = "ibv_destroy_qp does not return";
  f.kernel = cols[0].traces[0].kernel;
  f.kernel_trace = cols[0].traces[0].trace;
  f.devices = {cols[0].label};
  const Report r{cols, judged, corpus, {f}, {}, {}, {1.0}};
  std::ostringstream text;
  print_device_report(r, text);
  const std::string t = text.str();
  EXPECT_NE(t.find("  the kernel reported, as 038_type2_destroy_qp.mwt ran:\n"
                   "    WARNING: at rxe_pool.c:255 __rxe_cleanup+0x118/0x160\n"),
            std::string::npos) << t;
  EXPECT_NE(t.find("== the kernel reported on softroce 6.1.0-56-amd64, as traces with no finding ran ==\n"
                   "  001_resources_basic.mwt:\n    WARNING: at rxe_qp.c:1 elsewhere+0x1/0x2\n"),
            std::string::npos) << t;
  EXPECT_EQ(count(t, "WARNING: at rxe_pool.c:255"), 1u) << t;  // its finding's trace is not listed again
  EXPECT_EQ(t.find("002_quiet"), std::string::npos) << t;
  const std::string j = device_json(r);
  EXPECT_EQ(count(j, "\"kernel\": \"WARNING: at rxe_pool.c:255"), 2u) << j;  // the finding's and its trace's
  EXPECT_EQ(count(j, "\"kernel\": \"WARNING: at rxe_qp.c:1"), 1u) << j;
  EXPECT_NE(device_html(r, "").find("<p>the kernel reported, as 038_type2_destroy_qp.mwt ran:</p><pre>WARNING: at "
                                    "rxe_pool.c:255"),
            std::string::npos);
}

// A report that came as a trace's process exited, and that another finding
// shows from a verb, is named as that finding's, in one line.
TEST(DeviceReport, AReportFromAProcesssExitPointsToItsFinding) {
  std::vector<DeviceColumn> cols(1);
  cols[0].label = "softroce 6.1.0-56-amd64";
  cols[0].traces = {{"002_quiet.mwt", {}, "", ""}};
  const std::vector<CorpusTrace> corpus = {{"002_quiet.mwt", {}}};
  const std::vector<DeviceJudgment> judged = {judge_device(cols[0], corpus, default_yardsticks())};
  Finding f;
  f.id = "F8dfd6a1d";
  f.severity = Severity::crash;
  f.kernel = "WARNING: at rxe_pool.c:255 __rxe_cleanup+0x118/0x160\nCall Trace:\n do_exit+0x381/0xb10\n";
  f.kernel_trace = "116_zero_length_type2_bound.mwt";
  f.kernel_same_as = "F262880bf";
  f.devices = {cols[0].label};
  const Report r{cols, judged, corpus, {f}, {}, {}, {1.0}};
  std::ostringstream text;
  print_device_report(r, text);
  const std::string line =
      "the kernel reported, as 116_zero_length_type2_bound.mwt's process exited, what F262880bf shows (WARNING: at "
      "rxe_pool.c:255 __rxe_cleanup+0x118/0x160): the exit's cleanup reached that bug, not this finding's op";
  EXPECT_NE(text.str().find("  " + line + "\n"), std::string::npos) << text.str();
  EXPECT_EQ(text.str().find("do_exit"), std::string::npos) << text.str();
  const std::string html = device_html(r, "");
  EXPECT_NE(html.find("<p>" + line + "</p>"), std::string::npos);
  EXPECT_EQ(html.find("do_exit"), std::string::npos);
}

// What an earlier run left for a finding this run does not have goes;
// anything else stays: a finding of this run, a folder with more than
// export files, a name that is no finding's, a link, an empty folder.
TEST(DeviceReport, AnEarlierRunsExportsOfAFindingGoneAreRemovedAndNothingElse) {
  const fs::path dir = scratch("stale_exports");
  for (const char* id : {"F0000dead", "F0000beef", "F0000abcd", "F-1234abcd"}) {
    fs::create_directories(dir / id);
    for (const char* f : {exports::kTraceFile, exports::kCFile, exports::kPyFile}) write(dir / id / f, "x");
  }
  write(dir / "F0000dead" / exports::kProgramFile, "x");  // compiled by export --device
  write(dir / "F0000abcd" / "notes.txt", "mine");
  fs::create_directories(dir / "F00000000");
  fs::create_directory_symlink(dir / "F0000dead", dir / "F0000111");
  std::ostringstream err;
  EXPECT_EQ(remove_stale_exports(dir.string(), {"F0000beef"}, err), std::vector<std::string>{"F0000dead"});
  EXPECT_FALSE(fs::exists(dir / "F0000dead"));
  EXPECT_TRUE(fs::is_symlink(dir / "F0000111"));
  for (const char* kept : {"F0000beef", "F0000abcd", "F-1234abcd" /* no finding's name */, "F00000000"})
    EXPECT_TRUE(fs::is_directory(dir / kept)) << kept;
  EXPECT_EQ(slurp(dir / "F0000abcd" / "notes.txt"), "mine");
  EXPECT_TRUE(remove_stale_exports((dir / "none").string(), {}, err).empty());
}

}  // namespace
}  // namespace mwc::cli
