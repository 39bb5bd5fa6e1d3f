#include "util/progress.hpp"

#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

namespace mwc {
namespace {

TEST(Progress, ALogGetsOnePlainLineAtTheEnd) {
  std::ostringstream log;
  Progress p(&log, "traces run", 3);
  EXPECT_FALSE(p.terminal());
  for (size_t i = 0; i < 3; ++i) p.update(i, "t" + std::to_string(i));
  EXPECT_EQ(log.str(), "");
  p.update(3);
  p.update(3);  // once
  const std::string text = log.str();
  EXPECT_EQ(text.rfind("3 of 3 traces run in ", 0), 0u) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
  Progress none(nullptr, "x", 1);
  none.update(1);
}

TEST(Progress, TheEstimateIsTheRateSoFar) {
  EXPECT_EQ(Progress::eta(10, 1, 4), "0:30");
  EXPECT_EQ(Progress::eta(60, 1, 3), "2:00");
  EXPECT_EQ(Progress::eta(3600, 1, 3), "2:00:00");
  EXPECT_EQ(Progress::eta(5, 0, 3), "");
  EXPECT_EQ(Progress::eta(5, 3, 3), "");
}

}  // namespace
}  // namespace mwc
