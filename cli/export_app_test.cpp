// mwcheck export through the command line: what it writes, and bad input
// (status 2, FILE:LINE:COL).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

fs::path write(const std::string& name, const std::string& content) {
  const fs::path p = fs::temp_directory_path() / ("mwcheck_export_test_" + name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}
std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ExportApp, WritesTheTraceUpToTheOpWithTheProfilesOutcomesAndBothPrograms) {
  const fs::path t = write("ok.mwt",
                           "alloc_pd p0\nbuf b0 len=4096\n"
                           "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|MW_BIND\n"
                           "alloc_mw w0 pd=p0 type=2\ndereg_mr m0\ndealloc_mw w0\n");
  const fs::path dir = fs::temp_directory_path() / "mwcheck_export_test_out";
  fs::remove_all(dir);
  const Ran r = mwcheck({"export", t.string(), "--op", "5", "--id", "F-12345678", "-o", dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, (dir / "repro.mwt").string() + "\n" + (dir / "repro.c").string() + "\n" +
                       (dir / "test_repro.py").string() + "\n");
  const std::string mwt = read(dir / "repro.mwt");
  EXPECT_NE(mwt.find("dereg_mr m0 => OK\n"), std::string::npos) << mwt;
  EXPECT_EQ(mwt.find("dealloc_mw"), std::string::npos) << mwt;  // after the op: left out
  const std::string c = read(dir / "repro.c");
  EXPECT_NE(c.find("return mwc_verdict(&rt, \"F-12345678\", 4);"), std::string::npos);
  EXPECT_NE(read(dir / "test_repro.py").find("def test_F_12345678(self):"), std::string::npos);
  // Same input, same bytes.
  EXPECT_EQ(mwcheck({"export", t.string(), "--op", "5", "--id", "F-12345678", "-o", dir.string()}).status, 0);
  EXPECT_EQ(read(dir / "repro.c"), c);
  // The expected outcomes are the profile's.
  ASSERT_EQ(mwcheck({"export", t.string(), "--op", "5", "-p", "det", "-o", dir.string()}).status, 0);
  EXPECT_NE(read(dir / "repro.mwt").find("the specification (det) says"), std::string::npos);
}

TEST(ExportApp, BadInputIsStatusTwoWithItsPlace) {
  const fs::path bad = write("bad.mwt", "alloc_pd p0\nbind_mw q0 nonsense\n");
  const fs::path dir = fs::temp_directory_path() / "mwcheck_export_test_bad";
  Ran r = mwcheck({"export", bad.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(bad.string() + ":2:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;

  const fs::path ok = write("short.mwt", "alloc_pd p0\n");
  r = mwcheck({"export", ok.string(), "--op", "5", "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("beyond"), std::string::npos) << r.err;
  EXPECT_EQ(mwcheck({"export", ok.string(), "-p", "nosuch", "-o", dir.string()}).status, 2);
  EXPECT_EQ(mwcheck({"export", ok.string()}).status, 2);                       // no -o
  EXPECT_EQ(mwcheck({"export", "-o", dir.string()}).status, 2);               // no trace
  EXPECT_EQ(mwcheck({"export", ok.string(), "-o", dir.string(), "--device", "mlx5_0"}).status, 2);
  EXPECT_EQ(mwcheck({"export", ok.string(), "--seen", "NOPE", "-o", dir.string()}).status, 2);
  const fs::path empty = write("empty.mwt", "# nothing\n");
  r = mwcheck({"export", empty.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(empty.string() + ":1:1: error: ", 0), 0u) << r.err;
  // A folder that cannot be made.
  r = mwcheck({"export", ok.string(), "-o", (ok / "sub").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot"), std::string::npos) << r.err;
}

// A report as conform --device writes it: one finding, one unsupported feature.
const char* kReport = R"({"findings_schema": 1, "findings": [
  {"id": "F0badc0de", "severity": "security", "summary": "IBV_WR_RDMA_READ from the peer grants what the specification refuses",
   "rule": "remote.range", "source": "IBTA C10-75", "yardstick": "ibta", "device_outcome": "IBV_WC_SUCCESS",
   "reproducer": "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ\ncreate_qp q0 pd=p0\npeer_read q0 rkey=m0 addr=m0+4095 len=2\n"},
  {"id": "F00000001", "severity": "unsupported", "summary": "det_bind: no such verb", "reproducer": "alloc_pd p0\n"}]})";

TEST(ExportApp, AFindingOfAReportIsExportedAsItsRunJudgedIt) {
  const fs::path report = write("report.json", kReport);
  const fs::path dir = fs::temp_directory_path() / "mwcheck_export_test_finding";
  fs::remove_all(dir);
  Ran r = mwcheck({"export", "F0badc0de", "--from", report.string(), "-o", dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string c = read(dir / "repro.c");
  EXPECT_NE(c.find("IBV_WR_RDMA_READ from the peer grants what the specification refuses"), std::string::npos) << c;
  EXPECT_NE(c.find("Rule: remote.range (IBTA C10-75)"), std::string::npos) << c;
  EXPECT_NE(c.find("return mwc_verdict(&rt, \"F0badc0de\", 4);"), std::string::npos) << c;
  // The yardstick's outcome is what the program expects; the device's is what the report saw.
  const std::string mwt = read(dir / "repro.mwt");
  EXPECT_NE(mwt.find("peer_read q0 rkey=m0 addr=m0+4095 len=2 => IBV_WC_REM_ACCESS_ERR"), std::string::npos) << mwt;
  // A folder holding report.json names it too.
  const fs::path folder = fs::temp_directory_path() / "mwcheck_export_test_report";
  fs::create_directories(folder);
  fs::copy_file(report, folder / "report.json", fs::copy_options::overwrite_existing);
  EXPECT_EQ(mwcheck({"export", "F0badc0de", "--from", folder.string(), "-o", dir.string()}).status, 0);
  // So does standard input (-), even beside an empty folder called - (./- names that).
  const fs::path here = fs::current_path();
  fs::current_path(test::scratch("export_test_dash"));
  fs::create_directory("-");
  r = mwcheck_reading(kReport, Stdin::file, {"export", "F0badc0de", "--from", "-", "-o", dir.string()});
  const Ran folder_dash = mwcheck({"export", "F0badc0de", "--from", "./-", "-o", dir.string()});
  fs::current_path(here);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(folder_dash.status, 2);
  EXPECT_TRUE(folder_dash.err.starts_with("./-/report.json:1:1: error: cannot open")) << folder_dash.err;

  r = mwcheck({"export", "F12345678", "--from", report.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, report.string() + ":1:1: error: no finding 'F12345678' in this report (it has: F0badc0de, F00000001)\n");
  r = mwcheck({"export", "F00000001", "--from", report.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unsupported feature"), std::string::npos) << r.err;
  // What a trace takes from options a finding takes from its report: given
  // with --from, each is refused, with or without a finding's id, never
  // left unread (--id once exported every finding under their own ids).
  for (const auto& [option, value, why] :
       {std::tuple{"--op", "2", "a finding's reproducer ends at its op"},
        {"--seen", "IBV_WC_SUCCESS", "a finding's device outcome is its report's"},
        {"--profile", "rxe", "a finding is judged by its report's yardstick"},
        {"--id", "F0badc0de", "a finding keeps its report's id"}})
    for (const bool one : {true, false}) {
      std::vector<std::string> args = {"export", "--from", report.string(), option, value, "-o", dir.string()};
      if (one) args.insert(args.begin() + 1, "F0badc0de");
      r = mwcheck(args);
      EXPECT_EQ(r.status, 2) << option;
      EXPECT_EQ(r.err, fmt::format("mwcheck export: error: {} is for a trace: {}\n", option, why));
    }
  const fs::path notjson = write("notreport.json", "{\n  \"findings\": [,]\n}\n");
  r = mwcheck({"export", "F0badc0de", "--from", notjson.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(notjson.string() + ":2:", 0), 0u) << r.err;
}

TEST(ExportApp, AReportWithFieldsOfOtherTypesIsExportedOrRefusedNeverACrash) {
  // A report edited by hand: every field of it, the schema's and each
  // finding's, given a value of each JSON type in turn. A report that is
  // no longer one is refused with its place; a finding field that is no
  // text is an absent one (or, as an outcome or a trace, refused with its
  // place).
  const nlohmann::json report = nlohmann::json::parse(kReport);
  const std::vector<nlohmann::json> others = {nullptr, true, 7, -1, 1.5, 1e300, "text",
                                              nlohmann::json::array({1}), nlohmann::json::object()};
  const fs::path dir = fs::temp_directory_path() / "mwcheck_export_test_types";
  const auto check = [&](const nlohmann::json& j, const std::string& what) {
    const fs::path p = write("types.json", j.dump());
    const Ran r = mwcheck({"export", "--from", p.string(), "-o", dir.string()});
    EXPECT_TRUE(r.status == 0 || r.status == 2) << what << ": " << r.status << " " << r.err;
    // The place: the report's, or inside a finding's field ("FILE (ID's
    // device_outcome):1:COL").
    if (r.status == 2) {
      EXPECT_EQ(r.err.rfind(p.string(), 0), 0u) << what << ": " << r.err;
      EXPECT_NE(r.err.find(":1:"), std::string::npos) << what << ": " << r.err;
      EXPECT_NE(r.err.find(": error: "), std::string::npos) << what << ": " << r.err;
    }
  };
  for (const auto& v : others) {
    nlohmann::json j = report;
    j["findings_schema"] = v;
    check(j, "findings_schema=" + v.dump());
    j = report;
    j["findings"] = v;
    check(j, "findings=" + v.dump());
    for (const auto& [key, _] : report["findings"][0].items()) {
      j = report;
      j["findings"][0][key] = v;
      check(j, key + "=" + v.dump());
    }
  }
}

TEST(ExportApp, AReportWithoutAFindingsIdExportsEveryFindingIntoItsFolder) {
  // Two findings and an unsupported feature: a folder per finding, as conform --export writes them.
  std::string two = kReport;
  two.insert(two.find("{\"id\": \"F00000001\""),
             R"json({"id": "F0000beef", "severity": "conformance", "summary": "a bind the device refuses",
   "rule": "bind.ok", "source": "ibv_bind_mw(3)", "yardstick": "verbs", "device_outcome": "EINVAL",
   "reproducer": "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|MW_BIND\nalloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\nbind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_WRITE\n"},
  )json");
  const fs::path report = write("report2.json", two);
  const fs::path dir = fs::temp_directory_path() / "mwcheck_export_test_every";
  fs::remove_all(dir);
  Ran r = mwcheck({"export", "--from", report.string(), "-o", dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* id : {"F0badc0de", "F0000beef"})
    for (const char* file : {"repro.mwt", "repro.c", "test_repro.py"}) {
      EXPECT_TRUE(fs::exists(dir / id / file)) << id << "/" << file;
      EXPECT_NE(r.out.find((dir / id / file).string() + "\n"), std::string::npos) << r.out;
    }
  EXPECT_FALSE(fs::exists(dir / "F00000001"));
  // An earlier run's export of a finding this report lacks is removed, and
  // said; a folder holding more than exports stays.
  fs::create_directories(dir / "F0000dead");
  fs::create_directories(dir / "F00000bad");
  fs::copy_file(dir / "F0000beef" / "repro.c", dir / "F0000dead" / "repro.c");
  fs::copy_file(dir / "F0000beef" / "repro.c", dir / "F00000bad" / "repro.c");
  std::ofstream(dir / "F00000bad" / "notes.txt") << "mine";
  r = mwcheck({"export", "--from", report.string(), "-o", dir.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / "F0000dead"));
  EXPECT_TRUE(fs::exists(dir / "F0000beef" / "repro.c"));
  EXPECT_TRUE(fs::exists(dir / "F00000bad" / "notes.txt"));
  EXPECT_EQ(r.err, dir.string() + ": removed the exports of 1 finding of an earlier run that this one does not have: F0000dead\n");
  // Each as its own run judged it: the same files as one finding's export.
  const fs::path one = fs::temp_directory_path() / "mwcheck_export_test_every_one";
  fs::remove_all(one);
  ASSERT_EQ(mwcheck({"export", "F0000beef", "--from", report.string(), "-o", one.string()}).status, 0);
  EXPECT_EQ(read(dir / "F0000beef" / "repro.c"), read(one / "repro.c"));
  EXPECT_NE(read(one / "repro.mwt").find("bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_WRITE => OK key=+1"),
            std::string::npos)
      << read(one / "repro.mwt");
  // Nothing to export is no error; a report that is none, or a folder
  // that cannot be made, is bad input.
  const fs::path none = write("report_none.json", R"({"findings_schema": 1, "findings": []})");
  r = mwcheck({"export", "--from", none.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, none.string() + ": no finding to export\n");
  const fs::path notjson = write("notreport2.json", "[");
  r = mwcheck({"export", "--from", notjson.string(), "-o", dir.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind(notjson.string() + ":1:", 0), 0u) << r.err;
  r = mwcheck({"export", "--from", report.string(), "-o", (report / "sub").string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot write the exports"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mwc::cli
