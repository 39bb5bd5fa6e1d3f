#include "replay/fast_path.hpp"

#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "refmodel/binary_codec.hpp"
#include "refmodel/broken_rules.hpp"
#include "refmodel/mwb_record.hpp"
#include "refmodel/test_util.hpp"
#include "refmodel/text_codec.hpp"
#include "replay/fast_path_diff.hpp"
#include "replay/gen.hpp"

namespace mwc::replay {
namespace {

// Returns the .mwb file `gen` writes for o.
std::vector<uint8_t> gen_bytes(const GenOptions& o) {
  char* p = nullptr;
  size_t n = 0;
  std::FILE* f = open_memstream(&p, &n);
  EXPECT_EQ(generate(o, *binary_sink(f)), "");
  std::fclose(f);
  std::vector<uint8_t> bytes(p, p + n);
  std::free(p);
  return bytes;
}

// Generated traces: few objects (so keys, windows and QPs meet), many
// errors, churn, and each profile steering its expectations.
std::vector<Trace> generated() {
  std::vector<Trace> ts;
  const char* mixes[] = {"", "dereg_mr=200,rereg_mr=200,dealloc_mw=100",
                         "peer_fetch_add=300,peer_cmp_swap=300,wr_local_inv=200,peer_send_inv=200"};
  uint64_t seed = 1;
  for (const char* mix : mixes)
    for (const uint32_t errors : {10u, 300u}) {
      GenOptions o;
      o.ops = 6000;
      o.seed = seed++;
      o.mix = mix;
      o.pds = 2, o.mrs_per_pd = 3, o.mws_per_pd = 6, o.qps_per_pd = 2;
      o.error_permille = errors;
      ts.push_back(std::get<Trace>(decode_mwb(gen_bytes(o))));
    }
  return ts;
}

// The corpus, and accesses at the edges the fast path's checks decide.
std::vector<Trace> corpus() {
  std::vector<Trace> ts;
  for (const auto& f : testing::corpus_files()) ts.push_back(testing::parse_or_fail(testing::read_file(f)));
  const std::string head =
      "buf b0 len=4096\nalloc_pd p0\n"
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|REMOTE_ATOMIC|MW_BIND\n"
      "alloc_mw w0 pd=p0 type=1\ncreate_qp q0 pd=p0\n"
      "bind_mw q0 w0 mr=m0 addr=m0+64 len=128 access=REMOTE_READ|REMOTE_WRITE|REMOTE_ATOMIC\n"
      "poll_cq q0\n";
  for (const char* last : {"peer_fetch_add q0 rkey=w0 addr=w0+9", "peer_cmp_swap q0 rkey=m0 addr=m0+4095",
                           "peer_read q0 rkey=w0 addr=w0+120 len=9", "peer_write q0 rkey=m0 addr=m0+4095 len=2",
                           "peer_read q0 rkey=w0 addr=w0+0 len=128", "peer_write q0 rkey=m0 addr=m0 len=4096"})
    ts.push_back(testing::parse_or_fail(head + last + "\n"));
  // An MR longer than a check word's end holds (kEndCap): accesses past
  // the cap, inside and outside the MR, ask pass(); the rights the MR
  // does not grant stay refused.
  for (const char* last : {"peer_read q0 rkey=m0 addr=m0+268439000 len=8", "peer_read q0 rkey=m0 addr=m0+268439548 len=8",
                           "peer_write q0 rkey=m0 addr=m0+8 len=8"})
    ts.push_back(testing::parse_or_fail(
        std::string("buf b0 len=268439552\nalloc_pd p0\n"
                    "reg_mr m0 pd=p0 addr=b0 len=268439552 access=LOCAL_WRITE|REMOTE_READ\n"
                    "create_qp q0 pd=p0\npeer_read q0 rkey=m0 addr=m0+8 len=8\n") +
        last + "\n"));
  // A type 2 window's copy outlives its QP's death: a QP made again with
  // the same handle and PD must not pass through the window it ended.
  ts.push_back(testing::parse_or_fail(
      "buf b0 len=4096\nalloc_pd p0\n"
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
      "alloc_mw w0 pd=p0 type=2\ncreate_qp q0 pd=p0\n"
      "wr_bind_mw q0 w0 mr=m0 addr=b0 len=256 access=REMOTE_READ\npoll_cq q0\n"
      "peer_read q0 rkey=w0 addr=w0 len=8\ndestroy_qp q0\ncreate_qp q0 pd=p0\n"
      "peer_read q0 rkey=w0 addr=w0 len=8\n"));
  return ts;
}

TEST(FastPath, AgreesWithTheModelOpByOpOnTheCorpusUnderEveryProfileAndKnob) {
  const auto traces = corpus();
  ASSERT_GE(traces.size(), 40u);
  uint64_t fast = 0;
  for (const Trace& t : traces)
    for (const Profile& p : profile_variants()) {
      const Divergence d = first_divergence(t, p);
      EXPECT_EQ(d.op, -1) << t.origin << " under " << p.name << ": op " << d.op + 1 << " "
                          << (d.op >= 0 ? op_to_text(t.ops[static_cast<size_t>(d.op)]) : "")
                          << ": model " << to_text(d.model) << ", fast path " << to_text(d.fast);
      fast += d.fast_ops;
    }
  EXPECT_GT(fast, 100u) << "the fast path should decide some ops of the corpus";
}

TEST(FastPath, AgreesWithTheModelOpByOpOnGeneratedTraces) {
  uint64_t ops = 0, fast = 0, hot = 0;
  for (const Trace& t : generated())
    for (const Profile& p : profile_variants()) {
      ops += t.ops.size();
      const Divergence d = first_divergence(t, p);
      EXPECT_EQ(d.op, -1) << "under " << p.name << ": op " << d.op + 1 << " "
                          << (d.op >= 0 ? op_to_text(t.ops[static_cast<size_t>(d.op)]) : "")
                          << ": model " << to_text(d.model) << ", fast path " << to_text(d.fast);
      EXPECT_GT(d.fast_ops, 0u) << p.name;
      fast += d.fast_ops;
      hot += d.hot_ops;
    }
  EXPECT_GT(fast, ops / 3) << "the fast path should decide most remote accesses";
  EXPECT_GT(hot, fast / 2) << "the check words should pass most of what the fast path passes";
}

// Every rule template the fast path uses matters, and a broken one is never
// taken silently: with any one of them broken, the fast path disagrees with
// the model somewhere (the differential check can fail), or it declines
// ops it decided before (a check word whose templates disagree at its
// bounds' edge is not derived: derive_hot()). A template whose breaking
// changes neither fails the test.
TEST(FastPath, ABrokenFastPathIsCaughtOrDeclines) {
  using B = Broken<Concrete>;
  auto traces = corpus();
  for (Trace& t : generated()) traces.push_back(std::move(t));
  const auto decided = [&] {
    uint64_t n = 0;
    for (const Trace& t : traces)
      for (const Profile& p : profile_variants()) n += first_divergence<B>(t, p).fast_ops;
    return n;
  };
  const uint64_t intact = decided();
  for (const RuleFn f : {RuleFn::grants, RuleFn::remote_range_ok, RuleFn::range_within,
                         RuleFn::translate, RuleFn::atomic_aligned}) {
    BreakRule<B> broken(static_cast<int>(f));
    bool caught = false;
    for (size_t i = 0; i < traces.size() && !caught; ++i)
      for (const Profile& p : profile_variants())
        if (first_divergence<B>(traces[i], p).op >= 0) {
          caught = true;
          break;
        }
    const uint64_t now = caught ? 0 : decided();
    EXPECT_TRUE(caught || now < intact)
        << kRuleFnNames[static_cast<int>(f)] << " broken in the fast path: no divergence, and " << now
        << " ops decided as with it intact (" << intact << ")";
  }
}

}  // namespace
}  // namespace mwc::replay
