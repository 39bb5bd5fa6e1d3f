#include "util/quote.hpp"

#include <gtest/gtest.h>

namespace mwc {
namespace {

TEST(Quote, PlainTextIsQuotedAsIs) { EXPECT_EQ(quote("peer_read"), "'peer_read'"); }

TEST(Quote, ControlBytesAreEscaped) {
  EXPECT_EQ(quote(std::string("OK\r")), "'OK\\r'");
  EXPECT_EQ(quote("a\x1b[31mb\a"), "'a\\x1b[31mb\\x07'");
  EXPECT_EQ(quote(std::string("x\0y", 3)), "'x\\x00y'");
  EXPECT_EQ(quote("tab\there\\"), "'tab\\there\\\\'");
  EXPECT_EQ(quote("\x7f"), "'\\x7f'");
}

TEST(Quote, LongInputIsCutWithAnEllipsis) {
  const std::string huge(4 << 20, 'x');
  const std::string q = quote(huge);
  EXPECT_EQ(q, "'" + std::string(kQuoteMax, 'x') + "...'");
  EXPECT_EQ(quote(std::string(kQuoteMax, 'y')), "'" + std::string(kQuoteMax, 'y') + "'");
  EXPECT_EQ(escaped("abcdef", 3), "abc...");
}

}  // namespace
}  // namespace mwc
