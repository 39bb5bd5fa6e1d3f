#include "record/event_log.hpp"

#include <algorithm>

#include <gtest/gtest.h>

namespace mwc::record {
namespace {

ParseError error_of(std::string_view text) {
  auto r = parse_log(text);
  EXPECT_TRUE(std::holds_alternative<ParseError>(r)) << text;
  return std::holds_alternative<ParseError>(r) ? std::get<ParseError>(r) : ParseError{};
}

TEST(EventLog, ReadsEveryFieldOfEveryEventInOrder) {
  auto r = parse_log(
      "mwcheck-record 1\n"
      "pd pid=1 pd=2000 rc=0\n"
      "send pid=1 qp=1 wr_id=2 opcode=3 flags=4 len=5 raddr=6 rkey=7 inv=8 mw=9 mr=a addr=b blen=c "
      "access=d key=e cur=f rc=ffffffffffffffff\n");
  ASSERT_TRUE(std::holds_alternative<std::vector<Event>>(r));
  const auto& ev = std::get<std::vector<Event>>(r);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::pd);
  EXPECT_EQ(ev[0]["pd"], 0x2000u);
  EXPECT_EQ(ev[0].pid, 1u);
  EXPECT_EQ(ev[1].line, 3u);
  EXPECT_EQ(ev[1]["blen"], 0xcu);
  EXPECT_EQ(ev[1]["cur"], 0xfu);
  EXPECT_EQ(ev[1]["rc"], ~0ull);
}

TEST(EventLog, EveryEventKindHasAtMostTheFieldsAnEventHolds) {
  for (int k = 0; k < kEventKinds; ++k) {
    const auto f = event_fields(static_cast<EventKind>(k));
    EXPECT_LT(std::count(f.begin(), f.end(), ' '), kMaxEventFields) << event_name(static_cast<EventKind>(k));
  }
}

TEST(EventLog, ErrorsNameLineAndColumn) {
  ParseError e = error_of("pd pid=1 pd=1 rc=0\n");
  EXPECT_EQ(e.line, 1u);
  EXPECT_NE(e.message.find("header"), std::string::npos);
  e = error_of("mwcheck-record 7\n");
  EXPECT_NE(e.message.find("version 7"), std::string::npos);
  e = error_of("mwcheck-record 1\nfrob x=1\n");
  EXPECT_EQ(e.line, 2u);
  EXPECT_EQ(e.col, 1u);
  EXPECT_NE(e.message.find("unknown event 'frob'"), std::string::npos);
  e = error_of("mwcheck-record 1\npd pid=1 pd=1\n");
  EXPECT_EQ(e.col, 14u);
  EXPECT_NE(e.message.find("'rc' is missing"), std::string::npos);
  e = error_of("mwcheck-record 1\npd pid=1 pd=1 rc=zz\n");
  EXPECT_EQ(e.col, 18u);
  e = error_of("mwcheck-record 1\npd pid=1 pd=1 rx=0\n");
  EXPECT_EQ(e.col, 15u);
  e = error_of("mwcheck-record 1\npd pid=1 pd=1 rc=0 extra=1\n");
  EXPECT_NE(e.message.find("more fields"), std::string::npos);
  e = error_of("mwcheck-record 1\npd pid=1 pd=11111111111111111 rc=0\n");
  EXPECT_EQ(e.col, 13u);
  e = error_of("mwcheck-record 1\npd pd=1 rc=0\n");  // no process
  EXPECT_EQ(e.col, 4u);
  EXPECT_NE(e.message.find("expected 'pid=HEX'"), std::string::npos);
  e = error_of("");
  EXPECT_EQ(e.line, 1u);
}

}  // namespace
}  // namespace mwc::record
