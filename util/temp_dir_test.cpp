#include "util/temp_dir.hpp"

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace mwc {
namespace {

TEST(TempDir, AMissingTmpdirFallsBackToTmp) {
  const char* was = std::getenv("TMPDIR");
  const std::string saved = was ? was : "";
  setenv("TMPDIR", "/nonexistent/mwcheck-tmp", 1);
  EXPECT_EQ(temp_dir(), "/tmp");
  setenv("TMPDIR", "/", 1);
  EXPECT_EQ(temp_dir(), "/");
  if (was) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
}

}  // namespace
}  // namespace mwc
