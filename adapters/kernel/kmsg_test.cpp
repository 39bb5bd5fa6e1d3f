#include "adapters/kernel/kmsg.hpp"

#include <gtest/gtest.h>

#include "adapters/kernel/oops.hpp"

namespace mwc::kernel {
namespace {

TEST(Kmsg, ARecordGivesItsTextAsConsoleLines) {
  EXPECT_EQ(kmsg_text("4,1203,64466334,-;WARNING: CPU: 1 PID: 1139 at drivers/infiniband/sw/rxe/rxe_pool.c:255 "
                      "__rxe_cleanup+0x118/0x160 [rdma_rxe]\n SUBSYSTEM=infiniband\n DEVICE=+infiniband:rxe0\n"),
            "WARNING: CPU: 1 PID: 1139 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 "
            "[rdma_rxe]\n");
  // A line end inside the text is escaped; other escapes stay as they are.
  EXPECT_EQ(kmsg_text("6,7,8,c;first\\x0asecond \\x1b\n"), "first\nsecond \\x1b\n");
  EXPECT_EQ(kmsg_text("6,7,8,-;\n"), "\n");
  EXPECT_EQ(kmsg_text("no separator\n"), "");
  EXPECT_EQ(kmsg_text(""), "");
}

TEST(Kmsg, TheLogIsReadWithoutWaitingFromWhereItWasOpened) {
  KernelLog log;
  if (!log.open()) GTEST_SKIP() << "/dev/kmsg cannot be read here";
  // What was logged before it opened is not read again; nothing new, nothing waited for.
  const std::string a = log.read_new();
  EXPECT_EQ(log.read_new().find("Linux version"), std::string::npos);
  EXPECT_EQ(a.find("Linux version"), std::string::npos) << a;
}

// A guest's log with a WARNING from a trace's process and an oops of another.
constexpr const char* kLog = R"(rdma_rxe: rxe_mr_init_user: Unable to pin memory region err = -14
------------[ cut here ]------------
WARNING: CPU: 1 PID: 1139 at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]
Modules linked in: dummy rdma_rxe ip6_udp_tunnel udp_tunnel ib_uverbs ib_core crc32_generic
CPU: 1 PID: 1139 Comm: mwcheck Not tainted 6.1.0-56-amd64 #1  Debian 6.1.192-2
RIP: 0010:__rxe_cleanup+0x118/0x160 [rdma_rxe]
Call Trace:
 <TASK>
 ? complete+0x18/0x80
 rxe_destroy_qp+0x26/0x30 [rdma_rxe]
 ib_destroy_qp_user+0xc3/0x190 [ib_core]
 </TASK>
---[ end trace 0000000000000000 ]---
dummy0 speed is unknown, defaulting to 1000
BUG: kernel NULL pointer dereference, address: 0000000000000138
CPU: 0 PID: 1201 Comm: mwcheck Tainted: G        W          6.1.0-56-amd64 #1  Debian 6.1.192-2
RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]
Call Trace:
 rxe_invalidate_mw+0x7d/0xe0 [rdma_rxe]
)";

TEST(Kmsg, EachFaultOfALogIsOneReportNamingItsProcess) {
  const auto r = kernel_reports(kLog);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].pid, 1139);
  // The CPU and PID differ from run to run: the account leaves them out.
  EXPECT_EQ(r[0].account,
            "WARNING: at drivers/infiniband/sw/rxe/rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]\n"
            "RIP: 0010:__rxe_cleanup+0x118/0x160 [rdma_rxe]\n"
            "Call Trace:\n"
            " rxe_destroy_qp+0x26/0x30 [rdma_rxe]\n"
            " ib_destroy_qp_user+0xc3/0x190 [ib_core]\n");
  EXPECT_EQ(r[1].pid, 1201);
  EXPECT_EQ(r[1].account,
            "BUG: kernel NULL pointer dereference, address: 0000000000000138\n"
            "RIP: 0010:__rxe_put+0xb/0x50 [rdma_rxe]\n"
            "Call Trace:\n"
            " rxe_invalidate_mw+0x7d/0xe0 [rdma_rxe]\n");
  // Timestamps change nothing; a log without a fault has none.
  EXPECT_EQ(kernel_reports("[   64.466334] WARNING: CPU: 0 PID: 7 at a.c:1 f+0x1/0x2\n")[0].account,
            "WARNING: at a.c:1 f+0x1/0x2\n");
  EXPECT_TRUE(kernel_reports("dummy0 speed is unknown\nrdma_rxe: loaded\n").empty());
  EXPECT_TRUE(kernel_reports("").empty());
}

}  // namespace
}  // namespace mwc::kernel
