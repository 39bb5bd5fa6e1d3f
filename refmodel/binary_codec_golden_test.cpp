// Golden bytes: committed .mwb files (refmodel/testdata/golden) and the
// text each decodes to, beside it. Decoding a file must give its text byte
// for byte, and encoding the text in the file's version must give its
// bytes: a changed op code (ops.def) or version layout fails here, where a
// round trip through one build's codec would not notice. The version 1 and
// 2 files were written by the codec before codes were pinned in ops.def.
// NAME.raw.mwb files hold bytes no writer makes (every code byte once, as
// a record's first byte): they are only decoded, pinning how each version
// reads any byte.
// The version 4 files' trailers hold the XXH3 that xxHash's one-shot
// XXH3_64bits gives for the bytes before them (every_code.v4.raw.mwb is
// version 3's, its version and trailer changed so).
#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "refmodel/binary_codec.hpp"
#include "refmodel/mwb_record.hpp"
#include "refmodel/test_util.hpp"

namespace mwc {
namespace {
namespace fs = std::filesystem;

std::vector<fs::path> golden_files() {
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  const fs::path dir = fs::path(src ? src : ".") / "refmodel" / "testdata" / "golden";
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".mwb") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// Returns "" when the texts are the same, else their first line that
// differs: "line N: want WANT, got GOT".
std::string text_difference(const std::string& want, const std::string& got) {
  std::istringstream w(want), g(got);
  std::string a, b;
  for (int line = 1;; ++line) {
    const bool more_w = static_cast<bool>(std::getline(w, a)), more_g = static_cast<bool>(std::getline(g, b));
    if (!more_w && !more_g) return "";
    if (!more_w || !more_g || a != b)
      return "line " + std::to_string(line) + ": want `" + (more_w ? a : "(end)") + "`, got `" +
             (more_g ? b : "(end)") + "`";
  }
}

// Returns "" when the bytes are the same, else the first offset that differs.
std::string bytes_difference(const std::vector<uint8_t>& want, const std::vector<uint8_t>& got) {
  const auto [w, g] = std::mismatch(want.begin(), want.end(), got.begin(), got.end());
  if (w == want.end() && g == got.end()) return "";
  return "byte " + std::to_string(w - want.begin()) + ": want " +
         (w == want.end() ? "(end)" : std::to_string(*w)) + ", got " +
         (g == got.end() ? "(end)" : std::to_string(*g));
}

TEST(BinaryGolden, EachFileDecodesToItsTextAndItsTextEncodesToIt) {
  const auto files = golden_files();
  ASSERT_GE(files.size(), 8u) << "refmodel/testdata/golden not found (MWCHECK_SOURCE_DIR)";
  std::set<uint16_t> versions;
  std::set<OpCode> ops;
  for (const auto& f : files) {
    const auto bytes = bytes_of(testing::read_file(f));
    fs::path text_path = f;
    const std::string text = testing::read_file(text_path.replace_extension(".mwt"));
    ASSERT_FALSE(text.empty()) << text_path;
    auto r = decode_mwb(bytes);
    ASSERT_TRUE(std::holds_alternative<Trace>(r))
        << f << ": " << std::get<DecodeError>(r).message;
    const Trace& t = std::get<Trace>(r);
    EXPECT_EQ(text_difference(text, print_text(t)), "") << f << " no longer decodes to " << text_path;
    const uint16_t version = bytes[4];
    versions.insert(version);
    if (f.stem().extension() == ".raw") continue;
    EXPECT_EQ(bytes_difference(bytes, encode_mwb(testing::parse_or_fail(text), version)), "")
        << text_path << " no longer encodes to " << f;
    for (const Op& op : t.ops) ops.insert(op.code);
  }
  EXPECT_EQ(versions, (std::set<uint16_t>{1, 2, 3, 4}));
  EXPECT_EQ(ops.size(), static_cast<size_t>(kOpCount)) << "an op has no golden bytes";
}

// Every version maps each op's record code to one code byte and back, and
// no two record codes to the same byte (ops.def's codes are unique: a
// static_assert in mwb_record.hpp).
TEST(BinaryGolden, CodesAreUniqueInEveryVersion) {
  EXPECT_TRUE(mwb::mwb_codes_unique_and_dense());
  for (const mwb::Format& f : mwb::kFormats) {
    std::set<uint8_t> used;
    const auto same = [&](int rec) {
      EXPECT_EQ(f.code_of[f.byte_of[rec]], rec) << "version " << f.version << " code " << rec;
      EXPECT_TRUE(used.insert(f.byte_of[rec]).second) << "version " << f.version << " code " << rec;
    };
    for (int c = 0; c < kOpCount; ++c) {
      ASSERT_TRUE(f.knows(static_cast<OpCode>(c)));
      same(c);
      EXPECT_EQ(f.byte_of[c], mwb::kMwbCodeOf[c]) << "an op's byte is its ops.def code";
      if (f.version >= 2) same(mwb::kFoldBase + 2 * c), same(mwb::kFoldBase + 2 * c + 1);
    }
    same(mwb::kExpectCode);
    same(mwb::kCommentCode);
    if (f.version >= 2)
      for (int i = 0; i < 2 * mwb::kCompactOpCount; ++i) same(mwb::kCompactBase + i);
    EXPECT_EQ(used.size(), static_cast<size_t>(f.code_count));
  }
}

}  // namespace
}  // namespace mwc
