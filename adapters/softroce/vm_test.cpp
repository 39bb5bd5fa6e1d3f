#include "adapters/softroce/vm.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace mwc::softroce {
namespace {

namespace fs = std::filesystem;

// Returns how many lines file p has (0 when there is none).
int lines_of(const fs::path& p) {
  std::ifstream in(p);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST(PrepareImage, BuildsOncePerProcessAndAgainWhenAPartIsGone) {
  // An image script that notes each run and names three parts it made.
  const fs::path dir = fs::temp_directory_path() / ("mwcheck-image-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path runs = dir / "runs", script = dir / "build-image";
  std::ofstream(script) << "#!/bin/sh\n"
                        << "echo run >> '" << runs.string() << "'\n"
                        << "for part in kernel system program; do : > '" << dir.string()
                        << "'/$part; echo '" << dir.string() << "'/$part; done\n";
  fs::permissions(script, fs::perms::owner_all);
  VmOptions o;
  o.image_script = script.string();
  std::string err;
  EXPECT_TRUE(prepare_image(o, err)) << err;
  EXPECT_TRUE(prepare_image(o, err)) << err;
  EXPECT_EQ(lines_of(runs), 1);  // the second found the first's parts
  // Other options are another image.
  VmOptions other = o;
  other.kernel = "6.12";
  EXPECT_TRUE(prepare_image(other, err)) << err;
  EXPECT_EQ(lines_of(runs), 2);
  // A part gone (another build pruned it from the cache): built again.
  fs::remove(dir / "program");
  EXPECT_TRUE(prepare_image(o, err)) << err;
  EXPECT_EQ(lines_of(runs), 3);
  EXPECT_TRUE(prepare_image(o, err)) << err;
  EXPECT_EQ(lines_of(runs), 3);
  fs::remove_all(dir);
}

TEST(PrepareImage, AFailedBuildIsNotKept) {
  const fs::path dir = fs::temp_directory_path() / ("mwcheck-image-fail-test-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path runs = dir / "runs", script = dir / "build-image";
  std::ofstream(script) << "#!/bin/sh\necho run >> '" << runs.string() << "'\nexit 1\n";
  fs::permissions(script, fs::perms::owner_all);
  VmOptions o;
  o.image_script = script.string();
  std::string err;
  EXPECT_FALSE(prepare_image(o, err));
  EXPECT_EQ(err, "building the Soft-RoCE image failed");
  EXPECT_FALSE(prepare_image(o, err));
  EXPECT_EQ(lines_of(runs), 2);  // tried again: nothing was kept
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mwc::softroce
