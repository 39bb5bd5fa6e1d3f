// Bad input never crashes, hangs or corrupts: random bytes, truncated
// files, huge numbers and very long lines fed to `run` (from the file and
// from standard input) and `convert` end with exit 0, 1 or 2, and every
// error names FILE:LINE:COL. CI runs this under the asan preset.
#include <filesystem>
#include <fstream>
#include <random>
#include <cctype>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/app.hpp"
#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {
namespace fs = std::filesystem;

fs::path write(const std::string& name, const std::string& content) {
  const fs::path p = fs::temp_directory_path() / ("mwcheck_robust_" + name);
  std::ofstream(p, std::ios::binary) << content;
  return p;
}

// Expects a run's status to be 0, 1 or 2 and, at 2, a short
// FILE:LINE:COL: error: MESSAGE naming `shown`.
void expect_status(int status, const std::string& e, const std::string& shown, const fs::path& file) {
  EXPECT_TRUE(status == 0 || status == 1 || status == 2) << file;
  if (status != kExitBadInput) return;
  const std::string prefix = shown + ":";
  ASSERT_EQ(e.rfind(prefix, 0), 0u) << e;
  size_t i = prefix.size(), digits = 0;
  while (i < e.size() && std::isdigit(static_cast<unsigned char>(e[i]))) ++i, ++digits;
  ASSERT_TRUE(digits > 0 && i < e.size() && e[i] == ':') << e;
  ++i, digits = 0;
  while (i < e.size() && std::isdigit(static_cast<unsigned char>(e[i]))) ++i, ++digits;
  EXPECT_TRUE(digits > 0 && e.compare(i, 9, ": error: ") == 0) << e;
  EXPECT_LT(e.size(), 400u) << e.substr(0, 400);
}

void expect_clean(const fs::path& file) {
  const std::string out_file = (fs::temp_directory_path() / "mwcheck_robust_out.mwb").string();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--check", file.string()},
        std::vector<std::string>{"run", "--profile", "det", file.string()},
        std::vector<std::string>{"convert", file.string(), out_file}}) {
    std::ostringstream out, err;
    const int status = run_app(args, out, err);
    expect_status(status, err.str(), file.string(), file);
  }
  // Standard input, which run reads once, in one pass.
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const Ran r = mwcheck_reading(bytes, Stdin::file, {"run", "--check", "-"});
  expect_status(r.status, r.err, "-", file);
}

std::string sample() {
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  std::ifstream in(fs::path(src ? src : ".") / "corpus" / "conformance" / "010_bind_type1_basic.mwt");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.empty())
    s = "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=MW_BIND\n"
        "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\nbind_mw q0 w0 mr=m0 addr=m0 len=8 => OK\n";
  return s;
}

TEST(Robustness, RandomBytes) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 150; ++i) {
    std::string s(rng() % 2000, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    if (i % 3 == 0) s = "MWTB" + s;  // past the magic, into the records
    expect_clean(write(i % 2 ? "random.mwt" : "random.mwb", s));
  }
}

TEST(Robustness, TruncatedFiles) {
  const std::string text = sample();
  for (size_t cut = 0; cut < text.size(); cut += 7) expect_clean(write("cut.mwt", text.substr(0, cut)));
  // A binary trace cut anywhere.
  const fs::path full = write("full.mwt", text);
  const std::string bin = (fs::temp_directory_path() / "mwcheck_robust_full.mwb").string();
  std::ostringstream out, err;
  ASSERT_EQ(run_app({"convert", full.string(), bin}, out, err), 0) << err.str();
  std::ifstream in(bin, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut = 0; cut < bytes.size(); ++cut) expect_clean(write("cut.mwb", bytes.substr(0, cut)));
}

TEST(Robustness, HugeNumbersAndLongLines) {
  const std::string huge(5000, '9');
  for (const std::string& s : std::vector<std::string>{
           "buf b0 len=" + huge + "\n",
           "alloc_pd p" + huge + "\n",
           "peer_read q0 rkey=0x" + huge + " addr=0x" + huge + "\n",
           "peer_read q0 rkey=w0+" + huge + " addr=b0-" + huge + "\n",
           "wr_bind_mw q0 w0 key=-" + huge + "\n",
           "alloc_pd p0 => OK key=+" + huge + "\n",
           "alloc_pd p0 " + std::string(1 << 20, 'x') + "\n",
           std::string(1 << 20, ' ') + "alloc_pd p0\n",
           "alloc_pd p0 # " + std::string(1 << 20, '#') + "\n",
           "alloc_pd p0 => " + std::string(100000, ';') + "\n",
           std::string(1 << 16, '\n') + "frob\n",
           "buf b0 len=4294967296\nalloc_pd p0\nreg_mr m0 pd=p0 addr=0xffffffffffffffff len=18446744073709551615\n",
       })
    expect_clean(write("huge.mwt", s));
}

TEST(Robustness, MutatedCorpusLines) {
  std::mt19937_64 rng(11);
  const std::string text = sample();
  for (int i = 0; i < 300; ++i) {
    std::string s = text;
    for (int k = 0; k < 4; ++k) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = static_cast<char>(rng()); break;
        case 1: s.erase(at, rng() % 8); break;
        default: s.insert(at, std::string(1 + rng() % 3, "=+-.|;:#0x9w"[rng() % 12])); break;
      }
      if (s.empty()) s = "x";
    }
    expect_clean(write("mutated.mwt", s));
  }
}

}  // namespace
}  // namespace mwc::cli
