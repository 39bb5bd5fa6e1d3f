// mwcheck record of real programs in the Soft-RoCE VM (label softroce):
// rdma-core's own ibv_rc_pingpong, server and client together, recorded
// by one command, and the trace replayed on the model and on rxe; a
// program that waits longer than the guest's silence limit ends at
// --timeout as TIMEOUT.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "adapters/softroce/test_command.hpp"

namespace fs = std::filesystem;

namespace {

using mwc::softroce::testing::mwcheck;

const std::string kPingpong = IBV_RC_PINGPONG;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(RecordSoftRoce, PingpongServerAndClientAreRecordedTogetherAndReplay) {
  if (kPingpong.empty()) GTEST_SKIP() << "no ibv_rc_pingpong (ibverbs-utils)";
  const fs::path dir = fresh_dir("mwcheck-record-pingpong-test");
  const std::string trace = (dir / "pingpong.mwt").string();
  std::string out;
  // The server listens; the client connects over TCP to 127.0.0.1 and
  // both exchange five messages through rxe0.
  ASSERT_EQ(mwcheck("record --device softroce --program " + kPingpong + " --timeout 300 -o " + trace +
                        " --log " + (dir / "pingpong.log").string() +
                        " -- sh -c 'ibv_rc_pingpong -d rxe0 -g $MWCHECK_GID_INDEX -n 5 & sleep 3;"
                        " ibv_rc_pingpong -d rxe0 -g $MWCHECK_GID_INDEX -n 5 127.0.0.1; wait'",
                    out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(dir / "pingpong.log")) << out;
  // Both ends say how their messages went.
  EXPECT_EQ(count(out, "iters in"), 2u) << out;
  const std::string text = read(trace);
  // The header names the command as it was given, two processes' QPs are in it.
  EXPECT_NE(text.find("recorded by mwcheck record from sh -c ibv_rc_pingpong"), std::string::npos) << text;
  EXPECT_EQ(count(text, "create_qp q"), 2u) << text;
  EXPECT_EQ(count(text, "wr_send q"), 10u) << text;
  EXPECT_EQ(count(text, "=> IBV_WC_SUCCESS IBV_WC_SEND"), 10u) << text;
  // All a trace cannot say is where each send's bytes came from (the MR's lkey).
  EXPECT_EQ(count(text, "# log line"), 10u) << text;
  EXPECT_EQ(count(text, "send recorded without its 4096 bytes from registered memory"), 10u) << text;
  // The model and rxe each give every op what the programs saw.
  out.clear();
  EXPECT_EQ(mwcheck("run --check --profile rxe " + trace, out), 0) << out;
  out.clear();
  EXPECT_EQ(mwcheck("run --check --device softroce " + trace, out), 0) << out;
}

TEST(RecordSoftRoce, AServerLeftAloneEndsAsTimeoutPastTheGuestsSilenceLimit) {
  if (kPingpong.empty()) GTEST_SKIP() << "no ibv_rc_pingpong (ibverbs-utils)";
  const fs::path dir = fresh_dir("mwcheck-record-lone-server-test");
  const std::string trace = (dir / "server.mwt").string();
  std::string out;
  // Longer than the 90 s a silent guest is given: still the program's time.
  EXPECT_EQ(mwcheck("record --device softroce --timeout 100 -o " + trace + " -- " + kPingpong + " -d rxe0", out),
            1)
      << out;
  EXPECT_NE(out.find("the program was killed after the time limit (TIMEOUT)"), std::string::npos) << out;
  EXPECT_EQ(out.find("died"), std::string::npos) << out;
  // What it did before it waited is recorded: its PD, MR and QP.
  const std::string text = read(trace);
  EXPECT_EQ(count(text, "create_qp q0"), 1u) << out << text;
}

}  // namespace
