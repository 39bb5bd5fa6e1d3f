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
  EXPECT_EQ(ev[0].as<ev::pd>().pd, 0x2000u);
  EXPECT_EQ(ev[0].pid, 1u);
  EXPECT_EQ(ev[1].line, 3u);
  const auto send = ev[1].as<ev::send>();
  EXPECT_EQ(send.blen, 0xcu);
  EXPECT_EQ(send.cur, 0xfu);
  EXPECT_EQ(send.rc, ~0ull);
}

TEST(EventLog, EveryEventKindHasAtMostTheFieldsAnEventHolds) {
  for (int k = 0; k < kEventKinds; ++k)
    EXPECT_LE(kEventFields[k].size(), size_t{kMaxEventFields}) << event_name(static_cast<EventKind>(k));
}

TEST(EventLog, ATypedEventReadsBackAsTheLineTheRecorderWritesOfIt) {
  const ev::mr written{.pd = 0x2000, .addr = 0x7f00, .len = 0x1000, .iova = 0x7f00, .access = 1,
                       .mr = 0x3000, .rkey = 0x105, .rc = 0};
  char buf[kMaxEventLine];
  const std::string line(buf, event_line(buf, 1, written));
  EXPECT_EQ(line, "mr pid=1 pd=2000 addr=7f00 len=1000 iova=7f00 access=1 mr=3000 rkey=105 rc=0\n");
  auto r = parse_log("mwcheck-record 1\n" + line);
  ASSERT_TRUE(std::holds_alternative<std::vector<Event>>(r));
  const Event& e = std::get<std::vector<Event>>(r).at(0);
  EXPECT_EQ(e.as<ev::mr>().values(), written.values());
  EXPECT_EQ(visit(e, [](const auto& x) { return x.kind; }), EventKind::mr);
  EXPECT_THROW(e.as<ev::mw>(), std::logic_error);
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
