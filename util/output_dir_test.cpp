#include "util/output_dir.hpp"
#include "util/test_files.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace mwc {
namespace {
namespace fs = std::filesystem;
using test::scratch;

TEST(OutputDir, CreatesOnlyTheLastComponent) {
  const fs::path base = scratch("output_dir_last");
  std::string why;
  EXPECT_TRUE(make_output_dir((base / "out").string(), why)) << why;
  EXPECT_TRUE(fs::is_directory(base / "out"));
  EXPECT_TRUE(make_output_dir((base / "out").string(), why)) << why;  // already there
  EXPECT_TRUE(make_output_dir((base / "slash").string() + "/", why)) << why;
  EXPECT_TRUE(fs::is_directory(base / "slash"));
}

TEST(OutputDir, RefusesAMissingParent) {
  const fs::path base = scratch("output_dir_parent");
  std::string why;
  EXPECT_FALSE(make_output_dir((base / "typo" / "out").string(), why));
  EXPECT_NE(why.find("does not exist"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(base / "typo"));
}

TEST(OutputDir, RefusesAFileInTheWay) {
  const fs::path base = scratch("output_dir_file");
  std::ofstream(base / "f") << "x";
  std::string why;
  EXPECT_FALSE(make_output_dir((base / "f").string(), why));
  EXPECT_EQ(why, "not a folder");
}

TEST(OutputDir, RefusesDashWhichIsStandardOutputElsewhere) {
  std::string why;
  EXPECT_FALSE(make_output_dir("-", why));
  EXPECT_EQ(why, "- is standard output, which holds no folder (./- names a folder called -)");
}

}  // namespace
}  // namespace mwc
