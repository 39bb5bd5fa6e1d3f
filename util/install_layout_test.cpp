#include "util/install_layout.hpp"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "util/test_files.hpp"

namespace mwc {
namespace {
namespace fs = std::filesystem;

TEST(InstallLayout, TheBuildTreeFindsTheCorpusBesideItsPrograms) {
  unsetenv("MWCHECK_DATA_DIR");
  // Tests run from the build tree, where programs sit at its top.
  EXPECT_TRUE(fs::is_directory(data_path("corpus/conformance"))) << data_dir();
  EXPECT_TRUE(fs::exists(data_path("softroce/build-image"))) << data_dir();
  EXPECT_EQ(fs::path(private_lib("libmwcheck_record.so")).parent_path(), program_dir());
}

TEST(InstallLayout, TheEnvironmentNamesAnotherDataFolder) {
  const fs::path d = test::scratch("layout_data");
  setenv("MWCHECK_DATA_DIR", d.c_str(), 1);
  EXPECT_EQ(data_dir(), d);
  EXPECT_EQ(data_path("corpus/conformance"), (d / "corpus/conformance").string());
  unsetenv("MWCHECK_DATA_DIR");
}

}  // namespace
}  // namespace mwc
