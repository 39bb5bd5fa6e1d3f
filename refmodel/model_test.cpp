#include "refmodel/model.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#include <gtest/gtest.h>

#include "refmodel/test_util.hpp"

#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Counts heap allocations while `g_counting` is set, to show that the
// model's per-op path allocates nothing.
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace
void* operator new(size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace mwc {
namespace {

std::vector<Outcome> run(std::string_view profile_name, std::string_view text) {
  std::string err;
  Model m(*parse_profile(profile_name, err));
  const Trace t = testing::parse_or_fail(text);
  m.reset(t.caps);
  std::vector<Outcome> out;
  for (const Op& op : t.ops) {
    out.push_back(m.step(op));
    EXPECT_EQ(m.check_invariants(), nullptr) << op_to_text(op);
  }
  return out;
}

constexpr std::string_view kSetup = R"(buf b0 len=4096
alloc_pd p0
alloc_pd p1
reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|MW_BIND|LOCAL_READ
reg_mr m1 pd=p1 addr=b0 len=64 access=MW_BIND
alloc_mw w0 pd=p0 type=1
alloc_mw w2 pd=p0 type=2
create_qp q0 pd=p0
create_qp q1 pd=p0
)";
constexpr size_t kSetupOps = 9;

Outcome last(std::string_view profile, std::string_view ops) {
  return run(profile, std::string(kSetup) + std::string(ops)).back();
}

TEST(Model, Type1BindGrantsAccessInsideTheWindowOnly) {
  const auto o = run("verbs", std::string(kSetup) +
                                  "bind_mw q0 w0 mr=m0 addr=m0+64 len=128 access=REMOTE_READ\n"
                                  "poll_cq q0\n"
                                  "peer_read q1 rkey=w0 addr=w0 len=128\n"
                                  "peer_read q1 rkey=w0 addr=w0+1 len=128\n");
  EXPECT_EQ(to_text(o[kSetupOps]), "OK key=+1");
  EXPECT_EQ(to_text(o[kSetupOps + 1]), "IBV_WC_SUCCESS IBV_WC_BIND_MW");
  EXPECT_EQ(to_text(o[kSetupOps + 2]), "IBV_WC_SUCCESS");
  EXPECT_EQ(to_text(o[kSetupOps + 3]), "IBV_WC_REM_ACCESS_ERR");
  EXPECT_EQ(o[kSetupOps + 3].rule, Rule::remote_range);
}

TEST(Model, RxeChecksRemoteRangeAgainstTheMrOnly) {
  const Outcome o = last("rxe", "bind_mw q0 w0 mr=m0 addr=m0+64 len=128 access=REMOTE_READ\n"
                                "peer_read q1 rkey=w0 addr=w0+1 len=128\n");
  EXPECT_EQ(to_text(o), "IBV_WC_SUCCESS");
  EXPECT_TRUE(o.knobs & (1u << static_cast<int>(Knob::remote_range)));
}

TEST(Model, PdMismatchPerProfile) {
  const std::string op = "bind_mw q0 w0 mr=m1 addr=m1 len=64 access=REMOTE_READ\n";
  EXPECT_EQ(last("verbs", op).ret, Result::kEPERM);  // the provider's precheck
  EXPECT_EQ(last("det", op).ret, Result::kEPERM);
  const auto ibta = run("ibta", std::string(kSetup) + op + "poll_cq q0\n");
  EXPECT_EQ(to_text(ibta[kSetupOps]), "OK");
  EXPECT_EQ(to_text(ibta[kSetupOps + 1]), "IBV_WC_MW_BIND_ERR IBV_WC_BIND_MW");
}

TEST(Model, FailedBindKeepsOrDestroysTheOldBinding) {
  const std::string ops =
      "bind_mw q0 w0 mr=m0 addr=m0 len=64 access=REMOTE_READ\n"
      "bind_mw q0 w0 mr=m0 addr=m0+4090 len=64 access=REMOTE_READ\n"  // out of range
      "peer_read q1 rkey=w0.prev addr=w0 len=8\n";
  EXPECT_EQ(to_text(last("verbs", ops)), "IBV_WC_SUCCESS");  // old key, old binding kept
  EXPECT_EQ(to_text(last("ibta", ops)), "IBV_WC_REM_ACCESS_ERR");  // destroyed
  // det: ERANGE at once and nothing changes, so the current key still works.
  const auto det = run("det", std::string(kSetup) +
                                  "bind_mw q0 w0 mr=m0 addr=m0 len=64 access=REMOTE_READ\n"
                                  "bind_mw q0 w0 mr=m0 addr=m0+4090 len=64 access=REMOTE_READ\n"
                                  "peer_read q1 rkey=w0 addr=w0 len=8\n");
  EXPECT_EQ(det[kSetupOps + 1].ret, Result::kERANGE);
  EXPECT_EQ(to_text(det.back()), "IBV_WC_SUCCESS");
}

TEST(Model, Type2WindowsBelongToTheirQp) {
  const std::string bind = "wr_bind_mw q0 w2 mr=m0 addr=m0 len=64 access=REMOTE_WRITE key=0x42\n";
  const auto o = run("verbs", std::string(kSetup) + bind +
                                  "peer_write q1 rkey=w2 addr=w2 len=8\n");
  EXPECT_EQ(o[kSetupOps].key, static_cast<int16_t>(0x42));
  EXPECT_EQ(o[kSetupOps + 1].rule, Rule::remote_type2_qp);
  EXPECT_EQ(to_text(last("verbs", bind + "peer_write q0 rkey=w2 addr=w2 len=8\n")), "IBV_WC_SUCCESS");
}

TEST(Model, InvalidationEndsAccess) {
  const std::string bind = "wr_bind_mw q0 w2 mr=m0 addr=m0 len=64 access=REMOTE_WRITE\n";
  EXPECT_EQ(to_text(last("verbs", bind + "wr_local_inv q0 rkey=w2\npeer_write q0 rkey=w2 addr=w2\n")),
            "IBV_WC_REM_ACCESS_ERR");
  EXPECT_EQ(to_text(last("verbs", bind + "peer_send_inv q0 rkey=w2\npeer_write q0 rkey=w2 addr=w2\n")),
            "IBV_WC_REM_ACCESS_ERR");
  EXPECT_EQ(to_text(last("verbs", bind + "dealloc_mw w2\npeer_write q0 rkey=w2 addr=w2\n")),
            "IBV_WC_REM_ACCESS_ERR");
  // LOCAL_INV from another QP: only rxe lets it through.
  EXPECT_EQ(to_text(last("verbs", bind + "wr_local_inv q1 rkey=w2\npoll_cq q1\n")),
            "IBV_WC_LOC_QP_OP_ERR IBV_WC_LOCAL_INV");
  EXPECT_EQ(to_text(last("rxe", bind + "wr_local_inv q1 rkey=w2\npoll_cq q1\n")),
            "IBV_WC_SUCCESS IBV_WC_LOCAL_INV");
}

TEST(Model, DeregWhileBoundPerProfile) {
  const std::string ops = "bind_mw q0 w0 mr=m0 addr=m0 len=64 access=REMOTE_READ\ndereg_mr m0\n";
  EXPECT_EQ(last("verbs", ops).ret, Result::kEBUSY);
  EXPECT_EQ(last("rxe", ops).ret, Result::kEINVAL);
  EXPECT_EQ(last("mlx5", ops).ret, Result::kOK);
  EXPECT_EQ(to_text(last("mlx5", ops + "peer_read q1 rkey=w0 addr=w0 len=8\n")), "IBV_WC_REM_ACCESS_ERR");
}

TEST(Model, SendQueueDepthCountsUnsignaledWork) {
  const std::string ops =
      "create_qp q2 pd=p0 depth=2 sig_all=0\n"
      "wr_send q2\nwr_send q2\nwr_send q2\npoll_cq q2\n";
  const auto o = run("verbs", std::string(kSetup) + ops);
  EXPECT_EQ(o[kSetupOps + 3].ret, Result::kENOMEM);
  EXPECT_EQ(o[kSetupOps + 4].ret, Result::kEMPTY);  // unsignaled sends never complete alone
  EXPECT_EQ(last("det", ops).ret, Result::kEMPTY);
}

TEST(Model, OpsOnDeadObjectsAreSkipped) {
  EXPECT_EQ(last("verbs", "dealloc_mw w0\ndealloc_mw w0\n").ret, Result::kSKIP);
  EXPECT_EQ(last("verbs", "bind_mw q5 w0\n").ret, Result::kSKIP);
}

TEST(Model, InvariantsHoldAfterEveryOpOfTheCorpus) {
  for (const auto& f : testing::corpus_files())
    for (const auto& p : profile_descs()) {
      Model m(profile(*profile_from_name(p.name)));
      const Trace t = testing::parse_or_fail(testing::read_file(f));
      m.reset(t.caps);
      for (const Op& op : t.ops) {
        m.step(op);
        ASSERT_EQ(m.check_invariants(), nullptr) << f << " under " << p.name << ": " << op_to_text(op);
      }
    }
}

TEST(Model, GrownOpByOpItAnswersAsSizedForTheWholeTrace) {
  // A trace read once (run -) grows the tables piece by piece: a slot past
  // them must answer as a free one, rule and knobs included, for every op
  // of the corpus under every profile, grown before each op to what it
  // names (the smallest pieces there are).
  for (const auto& f : testing::corpus_files())
    for (const auto& p : profile_descs()) {
      const Trace t = testing::parse_or_fail(testing::read_file(f));
      Model whole(profile(*profile_from_name(p.name))), grown(profile(*profile_from_name(p.name)));
      whole.reset(t.caps);
      Caps seen{1, 1, 1, 1, 1};
      grown.reset(seen);
      for (const Op& op : t.ops) {
        note_caps(seen, op);
        grown.grow(seen);
        const Outcome a = whole.step(op), b = grown.step(op);
        ASSERT_TRUE(a == b && a.rule == b.rule && a.knobs == b.knobs)
            << f << " under " << p.name << ": " << op_to_text(op) << ": " << to_text(a) << " against " << to_text(b);
      }
      ASSERT_EQ(grown.check_invariants(), nullptr) << f;
    }
}

TEST(Model, StepAllocatesNothing) {
  std::string text(kSetup);
  for (int i = 0; i < 200; ++i)
    text += "bind_mw q0 w0 mr=m0 addr=m0 len=64 access=REMOTE_READ|REMOTE_WRITE\n"
            "poll_cq q0\npeer_read q1 rkey=w0 addr=w0 len=64\npeer_write q1 rkey=w0.prev addr=w0\n"
            "wr_bind_mw q0 w2 mr=m0 addr=m0 len=64 access=REMOTE_WRITE\nwr_local_inv q0 rkey=w2\n"
            "poll_cq q0\npoll_cq q0\nwr_send q0\npoll_cq q0\n";
  const Trace t = testing::parse_or_fail(text);
  for (const auto& p : profile_descs()) {
    Model m(profile(*profile_from_name(p.name)));
    m.reset(t.caps);
    Outcome sink;
    g_allocations = 0;
    g_counting = true;
    for (const Op& op : t.ops) sink = m.step(op);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0) << p.name;
    EXPECT_NE(sink.rule, Rule::handle_live);
  }
}

}  // namespace
}  // namespace mwc
