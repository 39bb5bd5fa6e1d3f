#include "adapters/softroce/markers.hpp"

#include <gtest/gtest.h>

namespace mwc::softroce {
namespace {

TEST(MarkerInside, FindsAMarkerJoinedToAProgramsUnendedLine) {
  EXPECT_EQ(marker_inside("torn-startMWCHECK-ALIVE"), 10u);
  EXPECT_EQ(marker_inside("xMWCHECK-OP 17"), 1u);
  EXPECT_EQ(marker_inside("last wordsMWCHECK-END rc=0"), 10u);
  EXPECT_EQ(marker_inside("abcMWCHECK-TRACES-DONE"), 3u);
  // The first of several.
  EXPECT_EQ(marker_inside("aMWCHECK-TRACE 3bMWCHECK-OP 0"), 1u);
}

TEST(MarkerInside, LeavesLinesThatBeginWithAMarkerOrHoldNone) {
  EXPECT_EQ(marker_inside("MWCHECK-OP 17"), std::string_view::npos);
  EXPECT_EQ(marker_inside("MWCHECK-READY 6.1.0-31-amd64"), std::string_view::npos);
  EXPECT_EQ(marker_inside(""), std::string_view::npos);
  EXPECT_EQ(marker_inside("[   12.345678] rdma_rxe: loaded"), std::string_view::npos);
  // The prefix alone, or a name no marker has, is the program's text.
  EXPECT_EQ(marker_inside("see MWCHECK-"), std::string_view::npos);
  EXPECT_EQ(marker_inside("see MWCHECK-MANUAL"), std::string_view::npos);
  EXPECT_EQ(marker_inside("see MWCHECK-O"), std::string_view::npos);
}

}  // namespace
}  // namespace mwc::softroce
