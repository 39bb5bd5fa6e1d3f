#include "record/to_trace.hpp"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "cli/test_app.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::record {
namespace {

// What the recorder wrote for example/mw_app on Soft-RoCE, in shape: two
// RC QPs connected to each other (0x11 and 0x12), a type 1 window bound
// with ibv_bind_mw, a type 2 window bound and invalidated by work
// requests, reads and writes through both from the other QP.
constexpr std::string_view kLog = R"(mwcheck-record 1
open pid=1 ctx=1000
pd pid=1 pd=2000 rc=0
mr pid=1 pd=2000 addr=7f0000000000 len=2000 iova=7f0000000000 access=17 mr=3000 rkey=105 rc=0
mr pid=1 pd=2000 addr=7f0000010000 len=1000 iova=7f0000010000 access=1 mr=3100 rkey=206 rc=0
qp pid=1 pd=2000 type=2 depth=8 sig_all=0 qp=4000 num=11 rc=0
qp pid=1 pd=2000 type=2 depth=8 sig_all=0 qp=4100 num=12 rc=0
qp_mod pid=1 qp=4000 mask=39 state=1 dest=0 rc=0
qp_mod pid=1 qp=4000 mask=1d8081 state=2 dest=12 rc=0
qp_mod pid=1 qp=4000 mask=36e01 state=3 dest=0 rc=0
qp_mod pid=1 qp=4100 mask=39 state=1 dest=0 rc=0
qp_mod pid=1 qp=4100 mask=1d8081 state=2 dest=11 rc=0
qp_mod pid=1 qp=4100 mask=36e01 state=3 dest=0 rc=0
mw pid=1 pd=2000 type=1 mw=5000 rkey=307 rc=0
mw pid=1 pd=2000 type=2 mw=5100 rkey=408 rc=0
bind pid=1 qp=4000 mw=5000 wr_id=1 flags=2 mr=3000 addr=7f0000000000 len=1000 access=6 cur=308 rc=0
wc pid=1 num=11 wr_id=1 status=0 opcode=5
send pid=1 qp=4100 wr_id=64 opcode=0 flags=2 len=40 raddr=7f0000000040 rkey=308 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
wc pid=1 num=12 wr_id=64 status=0 opcode=1
send pid=1 qp=4000 wr_id=2 opcode=8 flags=2 len=0 raddr=0 rkey=0 inv=0 mw=5100 mr=3000 addr=7f0000001000 blen=1000 access=4 key=409 cur=409 rc=0
wc pid=1 num=11 wr_id=2 status=0 opcode=5
send pid=1 qp=4100 wr_id=64 opcode=4 flags=2 len=80 raddr=7f0000001000 rkey=409 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
wc pid=1 num=12 wr_id=64 status=0 opcode=2
send pid=1 qp=4000 wr_id=3 opcode=7 flags=2 len=0 raddr=0 rkey=0 inv=409 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
wc pid=1 num=11 wr_id=3 status=0 opcode=6
send pid=1 qp=4100 wr_id=64 opcode=4 flags=2 len=8 raddr=7f0000001000 rkey=409 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
wc pid=1 num=12 wr_id=64 status=a opcode=2
mw_free pid=1 mw=5100 rc=0
mw_free pid=1 mw=5000 rc=0
mr_free pid=1 mr=3000 rc=0
qp_free pid=1 qp=4000 rc=0
qp_free pid=1 qp=4100 rc=0
mr_free pid=1 mr=3100 rc=0
pd_free pid=1 pd=2000 rc=0
)";

Recording convert(std::string_view log) {
  auto ev = parse_log(log);
  EXPECT_TRUE(std::holds_alternative<std::vector<Event>>(ev));
  Recording r = to_trace(std::get<std::vector<Event>>(ev), "mw_app");
  // What it writes reads back as the very trace.
  auto parsed = parse_text(print_text(r.trace));
  EXPECT_TRUE(std::holds_alternative<Trace>(parsed) && std::get<Trace>(parsed) == r.trace);
  return r;
}

std::string text_of(const Recording& r) { return print_text(r.trace); }

std::string ops_of(const Recording& r) {
  std::string s;
  std::istringstream in(text_of(r));
  for (std::string line; std::getline(in, line);)
    if (!line.starts_with("#")) s += line.substr(0, line.find("  #")) + "\n";
  return s;
}

TEST(ToTrace, AProgramBecomesOpsWithTheOutcomesItSaw) {
  const Recording r = convert(kLog);
  EXPECT_TRUE(r.skipped.empty());
  EXPECT_EQ(ops_of(r),
            "buf b0 len=8192 => OK\n"
            "buf b1 len=4096 => OK\n"
            "alloc_pd p0 => OK\n"
            "reg_mr m0 pd=p0 addr=b0 len=8192 access=LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ|MW_BIND => OK\n"
            "reg_mr m1 pd=p0 addr=b1 len=4096 access=LOCAL_WRITE => OK\n"
            "create_qp q0 pd=p0 depth=8 sig_all=0 state=RESET => OK\n"
            "create_qp q1 pd=p0 depth=8 sig_all=0 state=RESET => OK\n"
            "modify_qp q0 state=INIT => OK\n"
            "modify_qp q0 state=RTR => OK\n"
            "modify_qp q0 state=RTS => OK\n"
            "modify_qp q1 state=INIT => OK\n"
            "modify_qp q1 state=RTR => OK\n"
            "modify_qp q1 state=RTS => OK\n"
            "alloc_mw w0 pd=p0 => OK\n"
            "alloc_mw w1 pd=p0 type=2 => OK\n"
            "bind_mw q0 w0 mr=m0 addr=b0 len=4096 access=REMOTE_WRITE|REMOTE_READ flags=SIGNALED => OK\n"
            "poll_cq q0 => IBV_WC_SUCCESS IBV_WC_BIND_MW\n"
            "peer_write q0 rkey=w0 addr=b0+64 len=64 => IBV_WC_SUCCESS\n"
            "wr_bind_mw q0 w1 mr=m0 addr=b0+4096 len=4096 access=REMOTE_READ flags=SIGNALED => OK\n"
            "poll_cq q0 => IBV_WC_SUCCESS IBV_WC_BIND_MW\n"
            "peer_read q0 rkey=w1 addr=b0+4096 len=128 => IBV_WC_SUCCESS\n"
            "wr_local_inv q0 rkey=w1 flags=SIGNALED => OK\n"
            "poll_cq q0 => IBV_WC_SUCCESS IBV_WC_LOCAL_INV\n"
            "peer_read q0 rkey=w1 addr=b0+4096 => IBV_WC_REM_ACCESS_ERR\n"
            "dealloc_mw w1 => OK\n"
            "dealloc_mw w0 => OK\n"
            "dereg_mr m0 => OK\n"
            "destroy_qp q0 => OK\n"
            "destroy_qp q1 => OK\n"
            "dereg_mr m1 => OK\n"
            "dealloc_pd p0 => OK\n");
  EXPECT_EQ(r.trace.ops.size(), 31u);
  EXPECT_EQ(r.expected, 31u);
}

TEST(ToTrace, TheRecordingReplaysOnTheModelWithTheOutcomesTheProgramSaw) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("mwcheck_record_test_" + std::to_string(getpid()) + ".mwt");
  std::ofstream(path) << text_of(convert(kLog));
  const auto ran = cli::mwcheck({"run", "--check", "--profile", "rxe", path.string()});
  EXPECT_EQ(ran.status, 0) << ran.out << ran.err;
  std::filesystem::remove(path);
}

TEST(ToTrace, ProcessesOfOneRecordingMeetThroughTheirQpNumbers) {
  // A server and a client process on one device, the same addresses for
  // different objects: the client's read is the peer of the server's QP.
  const Recording r = convert(R"(mwcheck-record 1
pd pid=a pd=2000 rc=0
mr pid=a pd=2000 addr=10000 len=1000 iova=10000 access=14 mr=3000 rkey=105 rc=0
qp pid=a pd=2000 type=2 depth=10 sig_all=0 qp=4000 num=11 rc=0
mwcheck-record 1
pd pid=b pd=2000 rc=0
qp pid=b pd=2000 type=2 depth=10 sig_all=0 qp=4000 num=12 rc=0
qp_mod pid=a qp=4000 mask=100000 state=0 dest=12 rc=0
qp_mod pid=b qp=4000 mask=100000 state=0 dest=11 rc=0
mw pid=a pd=2000 type=1 mw=5000 rkey=307 rc=0
bind pid=a qp=4000 mw=5000 wr_id=1 flags=0 mr=3000 addr=10000 len=100 access=4 cur=308 rc=0
send pid=b qp=4000 wr_id=9 opcode=4 flags=2 len=8 raddr=10010 rkey=308 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
wc pid=b num=12 wr_id=9 status=0 opcode=2
qp_free pid=b qp=4000 rc=0
pd_free pid=b pd=2000 rc=0
pd_free pid=a pd=2000 rc=1
)");
  EXPECT_TRUE(r.skipped.empty()) << text_of(r);
  EXPECT_EQ(ops_of(r),
            "buf b0 len=4096 => OK\n"
            "alloc_pd p0 => OK\n"
            "reg_mr m0 pd=p0 addr=b0 len=4096 access=REMOTE_READ|MW_BIND => OK\n"
            "create_qp q0 pd=p0 sig_all=0 state=RESET => OK\n"
            "alloc_pd p1 => OK\n"
            "create_qp q1 pd=p1 sig_all=0 state=RESET => OK\n"
            "alloc_mw w0 pd=p0 => OK\n"
            "bind_mw q0 w0 mr=m0 addr=b0 len=256 access=REMOTE_READ => OK\n"
            "peer_read q0 rkey=w0 addr=b0+16 => IBV_WC_SUCCESS\n"
            "destroy_qp q1 => OK\n"
            "dealloc_pd p1 => OK\n"
            "dealloc_pd p0 => EPERM\n");
}

TEST(ToTrace, CompletionsEndTheRequestsInPostOrderWhateverTheirWrIds) {
  // Every request has wr_id 0; the first asks for no completion. The
  // success of the second says the first succeeded; the error of the third
  // is the third's.
  const Recording r = convert(R"(mwcheck-record 1
pd pid=1 pd=2000 rc=0
mr pid=1 pd=2000 addr=10000 len=1000 iova=10000 access=6 mr=3000 rkey=105 rc=0
qp pid=1 pd=2000 type=2 depth=10 sig_all=0 qp=4000 num=11 rc=0
qp pid=1 pd=2000 type=2 depth=10 sig_all=0 qp=4100 num=12 rc=0
qp_mod pid=1 qp=4100 mask=100000 state=0 dest=11 rc=0
send pid=1 qp=4100 wr_id=0 opcode=0 flags=0 len=8 raddr=10000 rkey=105 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
send pid=1 qp=4100 wr_id=0 opcode=4 flags=2 len=8 raddr=10000 rkey=105 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
send pid=1 qp=4100 wr_id=0 opcode=4 flags=2 len=8 raddr=20000 rkey=105 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
send pid=1 qp=4100 wr_id=0 opcode=4 flags=2 len=8 raddr=10000 rkey=105 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
wc pid=1 num=12 wr_id=0 status=0 opcode=2
wc pid=1 num=12 wr_id=0 status=a opcode=0
wc pid=1 num=12 wr_id=0 status=5 opcode=0
)");
  EXPECT_TRUE(r.skipped.empty()) << text_of(r);
  const std::string ops = ops_of(r);
  EXPECT_NE(ops.find("peer_write q0 rkey=m0 addr=b0 => IBV_WC_SUCCESS\n"
                     "peer_read q0 rkey=m0 addr=b0 => IBV_WC_SUCCESS\n"
                     "peer_read q0 rkey=m0 addr=b0+65536 => IBV_WC_REM_ACCESS_ERR\n"
                     "peer_read q0 rkey=m0 addr=b0 => IBV_WC_WR_FLUSH_ERR\n"),
            std::string::npos)
      << ops;
}

TEST(ToTrace, ASendKeepsItsInlineBytesAndSaysItLeftThoseOfAnMr) {
  // ibv_rc_pingpong's sends: 4096 bytes through its MR's lkey; then an inline send of 16.
  const Recording r = convert(R"(mwcheck-record 1
pd pid=1 pd=2000 rc=0
mr pid=1 pd=2000 addr=7f0000000000 len=1000 iova=7f0000000000 access=1 mr=3000 rkey=0 rc=0
qp pid=1 pd=2000 type=2 depth=1 sig_all=0 qp=4000 num=11 rc=0
send pid=1 qp=4000 wr_id=2 opcode=2 flags=2 len=1000 raddr=0 rkey=0 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
send pid=1 qp=4000 wr_id=3 opcode=2 flags=a len=10 raddr=0 rkey=0 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
)");
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0],
            "log line 5: send recorded without its 4096 bytes from registered memory: a trace's send names no "
            "local MR");
  EXPECT_NE(text_of(r).find("wr_send q0 flags=SIGNALED => OK  # log line 5: send recorded without"),
            std::string::npos)
      << text_of(r);
  EXPECT_NE(text_of(r).find("wr_send q0 len=16 flags=SIGNALED => OK\n"), std::string::npos) << text_of(r);
}

TEST(ToTrace, WhatATraceCannotSayIsACommentNamingTheLogLine) {
  const Recording r = convert(R"(mwcheck-record 1
pd pid=1 pd=2000 rc=0
qp pid=1 pd=2000 type=4 depth=8 sig_all=0 qp=4000 num=11 rc=0
qp pid=1 pd=2000 type=2 depth=80 sig_all=1 qp=4100 num=12 rc=0
qp_mod pid=1 qp=4100 mask=1d8081 state=2 dest=99 rc=0
send pid=1 qp=4100 wr_id=7 opcode=0 flags=0 len=8 raddr=1000 rkey=308 inv=0 mw=0 mr=0 addr=0 blen=0 access=0 key=0 cur=0 rc=0
mw_free pid=1 mw=5100 rc=0
mr pid=1 pd=2000 addr=7f0000000000 len=2000 iova=0 access=101 mr=3000 rkey=105 rc=0
mr pid=1 pd=2000 addr=0 len=2000 iova=0 access=1 mr=0 rkey=0 rc=e
wc pid=1 num=12 wr_id=9 status=5 opcode=0
)");
  ASSERT_EQ(r.skipped.size(), 3u);
  EXPECT_NE(r.skipped[0].find("log line 3: qp not recorded: a QP of type 4"), std::string::npos);
  EXPECT_NE(r.skipped[1].find("log line 6: send not recorded: q0 is connected to no QP of this program"),
            std::string::npos);
  EXPECT_NE(r.skipped[2].find("log line 7: mw_free not recorded"), std::string::npos);
  EXPECT_NE(text_of(r).find("create_qp q0 pd=p0 depth=64 state=RESET => OK  # max_send_wr 128"),
            std::string::npos);
  EXPECT_NE(text_of(r).find("reg_mr m0 pd=p0 addr=b0 len=8192 access=LOCAL_WRITE => OK  # registered at iova "
                        "0x0; the trace registers at the address; access bits 0x100 dropped"),
            std::string::npos)
      << text_of(r);
  // A failed registration is the next handle, left free; its address is
  // told from the nearest buffer.
  EXPECT_NE(text_of(r).find("reg_mr m1 pd=p0 addr=b0-139637976727552 len=8192 access=LOCAL_WRITE => EFAULT"),
            std::string::npos)
      << text_of(r);
  // A flushed completion: only its status counts.
  EXPECT_NE(text_of(r).find("poll_cq q0 => IBV_WC_WR_FLUSH_ERR\n"), std::string::npos);
  auto parsed = parse_text(text_of(r));
  EXPECT_TRUE(std::holds_alternative<Trace>(parsed));
}

TEST(ToTrace, AnAddressOutsideEveryBufferIsToldFromTheNearest) {
  // Buffers b0 [0x10000, +0x1000), b1 [0x20000, +0x1000), b2 [0x40000, +0x1000);
  // failed registrations name addresses before, between and after them.
  const Recording r = convert(R"(mwcheck-record 1
pd pid=1 pd=2000 rc=0
mr pid=1 pd=2000 addr=10000 len=1000 iova=10000 access=1 mr=1 rkey=100 rc=0
mr pid=1 pd=2000 addr=20000 len=1000 iova=20000 access=1 mr=2 rkey=200 rc=0
mr pid=1 pd=2000 addr=40000 len=1000 iova=40000 access=1 mr=3 rkey=300 rc=0
mr pid=1 pd=2000 addr=5000 len=10 iova=5000 access=1 mr=0 rkey=0 rc=e
mr pid=1 pd=2000 addr=18800 len=10 iova=18800 access=1 mr=0 rkey=0 rc=e
mr pid=1 pd=2000 addr=187ff len=10 iova=187ff access=1 mr=0 rkey=0 rc=e
mr pid=1 pd=2000 addr=20800 len=10 iova=20800 access=1 mr=0 rkey=0 rc=e
mr pid=1 pd=2000 addr=50000 len=10 iova=50000 access=1 mr=0 rkey=0 rc=e
)");
  const std::string t = text_of(r);
  for (const char* want : {"addr=b0-45056 ", "addr=b1-30720 ", "addr=b0+34815 ", "addr=b1+2048 ", "addr=b2+65536 "})
    EXPECT_NE(t.find(want), std::string::npos) << want << "\n" << t;
}

}  // namespace
}  // namespace mwc::record
