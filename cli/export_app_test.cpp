// mwcheck export through the command line: what it writes, and bad input
// (status 2, FILE:LINE:COL).
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mwc::cli
