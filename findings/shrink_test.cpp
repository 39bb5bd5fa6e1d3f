#include "findings/shrink.hpp"

#include <set>

#include <gtest/gtest.h>

#include "adapters/minimize.hpp"
#include "compare/run.hpp"
#include "findings/judge.hpp"
#include "findings/test_corpus.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::findings {
namespace {
using testing::backend;
using testing::corpus;

// The stale-key trace on a device that keeps invalidated keys valid, judged.
struct Judged {
  std::vector<CorpusTrace> c = testing::stale_key_trace();
  std::unique_ptr<Backend> dev = backend("mutant:stale_rkey");
  DeviceJudgment j = judge_device(run_device_corpus(*dev, c, nullptr, nullptr), c, default_yardsticks());
};

TEST(Shrink, TheReproducerIsOneMinimalOnTheDevice) {
  Judged s0;
  const auto& c = s0.c;
  auto& dev = s0.dev;
  const DeviceJudgment& j = s0.j;
  ASSERT_FALSE(j.findings.empty());
  const Finding& f = j.findings[0];
  const Profile& y = j.yardstick.profile;
  const Shrunk s = shrink_finding(*dev, f.reproducer, y, f.key,
                                  std::chrono::steady_clock::now() + std::chrono::seconds(60), {}, nullptr);
  EXPECT_TRUE(s.minimal) << s.note;
  EXPECT_LT(s.ops_after, c[0].trace.ops.size());
  EXPECT_EQ(s.finding, f.id);
  const Trace small = std::get<Trace>(parse_text(s.text));
  std::vector<Outcome> out;
  dev->run(small, out);
  EXPECT_TRUE(shows(small, out, dev->note(), y, f.key));
  // Removing any single op loses the finding.
  for (uint32_t i = 0; i < small.ops.size(); ++i) {
    std::vector<uint32_t> keep;
    for (uint32_t k = 0; k < small.ops.size(); ++k)
      if (k != i) keep.push_back(k);
    const Trace less = keep_ops(small, keep);
    dev->run(less, out);
    EXPECT_FALSE(shows(less, out, dev->note(), y, f.key)) << "op " << i + 1 << " could go";
  }
}

TEST(Shrink, TheCreationSliceKeepsWhatTheOpNamesAndWhatMadeIt) {
  const Trace t = std::get<Trace>(parse_text(
      "buf b0 len=4096\nalloc_pd p0\nalloc_pd p1\nreg_mr m0 pd=p0 addr=b0 len=4096 access=MW_BIND\n"
      "alloc_mw w0 pd=p0\nalloc_mw w1 pd=p1 type=2\ncreate_qp q0 pd=p0\ncreate_qp q1 pd=p1\n"
      "bind_mw q0 w0 mr=m0 addr=b0 len=256 access=REMOTE_READ\nwr_local_inv q1 rkey=w1\n"
      "peer_read q0 rkey=w0 addr=w0+8\n"));
  // The last op names q0 and w0 (rkey and address base); w0 names p0.
  EXPECT_EQ(creation_slice(t, 10), (std::vector<uint32_t>{1, 4, 6, 10}));
  EXPECT_EQ(creation_slice(t, 9), (std::vector<uint32_t>{2, 5, 7, 9}));
  EXPECT_EQ(creation_slice(t, 8), (std::vector<uint32_t>{0, 1, 3, 4, 6, 8}));
}

TEST(Shrink, AnAnswerFromAnEarlierBootIsTakenWithoutARun) {
  Judged s0;
  auto& dev = s0.dev;
  const DeviceJudgment& j = s0.j;
  ASSERT_FALSE(j.findings.empty());
  const Finding& f = j.findings[0];
  // Told that the start shows nothing, it does not run it and cannot shrink.
  const Shrunk s = shrink_finding(*dev, f.reproducer, j.yardstick.profile, f.key,
                                  std::chrono::steady_clock::now() + std::chrono::seconds(60),
                                  {{candidate_hash(f.reproducer), false}}, nullptr);
  EXPECT_EQ(s.runs, 0u);
  EXPECT_FALSE(s.minimal);
}

TEST(Shrink, ManyFindingsShareTheTimeAndKernelCrashesGoLast) {
  Judged s0;
  ASSERT_FALSE(s0.j.findings.empty());
  const Finding& f = s0.j.findings[0];
  std::vector<size_t> order;
  std::vector<Shrunk> got;
  shrink_findings(*s0.dev, {f.reproducer, f.reproducer, f.reproducer}, s0.j.yardstick.profile,
                  {"crash|kernel: nosuch", f.key, f.key}, std::chrono::steady_clock::now() + std::chrono::seconds(60),
                  {}, nullptr, [&](size_t i, const Shrunk& s) { order.push_back(i), got.push_back(s); });
  EXPECT_EQ(order, (std::vector<size_t>{1, 2, 0}));
  EXPECT_TRUE(got[0].minimal);
  EXPECT_TRUE(got[1].minimal);
  EXPECT_FALSE(got[2].minimal);  // the device shows no such crash
}

// A device whose bug shows only the first time it runs a trace (a race
// that a second run loses): from then on it is `fixed`.
class ShowsOnce final : public Backend {
 public:
  ShowsOnce(Backend& buggy, Backend& fixed) : buggy_(buggy), fixed_(fixed) {}
  const std::string& name() const override { return buggy_.name(); }
  int expectation_column() const override { return -1; }
  void run(const Trace& t, std::vector<Outcome>& out) override {
    (ran_.insert(candidate_hash(t)).second ? buggy_ : fixed_).run(t, out);
  }

 private:
  Backend &buggy_, &fixed_;
  std::set<uint64_t> ran_;
};

TEST(Shrink, AReproducerThatDoesNotShowASecondTimeIsNotOneMinimal) {
  Judged s0;
  ASSERT_FALSE(s0.j.findings.empty());
  const Finding& f = s0.j.findings[0];
  // Fixed, it is the yardstick itself.
  const auto fixed = backend(("profile:" + s0.j.yardstick.profile.name).c_str());
  ShowsOnce dev(*s0.dev, *fixed);
  const Shrunk s = shrink_finding(dev, f.reproducer, s0.j.yardstick.profile, f.key,
                                  std::chrono::steady_clock::now() + std::chrono::seconds(60), {}, nullptr);
  EXPECT_FALSE(s.minimal);
  EXPECT_EQ(s.note, kShownOnce);
  // It shrank all the same: every candidate ran once, as on the steady device.
  EXPECT_LT(s.ops_after, s.ops_before);
}

TEST(Shrink, TheSecondRunIsAnAnswerTheNextBootKnows) {
  Judged s0;
  ASSERT_FALSE(s0.j.findings.empty());
  const Finding& f = s0.j.findings[0];
  const Profile& y = s0.j.yardstick.profile;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::map<uint64_t, bool> learned;
  const Shrunk first = shrink_finding(*s0.dev, f.reproducer, y, f.key, until, {}, nullptr, &learned);
  ASSERT_TRUE(first.minimal) << first.note;
  const Trace small = std::get<Trace>(parse_text(first.text));
  // The second run has a name of its own, which no candidate has.
  ASSERT_TRUE(learned.contains(confirmation_hash(small)));
  EXPECT_TRUE(learned.at(confirmation_hash(small)));
  EXPECT_NE(confirmation_hash(small), candidate_hash(small));
  // A guest that comes back knowing every answer runs nothing again.
  const Shrunk again = shrink_finding(*s0.dev, f.reproducer, y, f.key, until, learned, nullptr);
  EXPECT_EQ(again.runs, 0u);
  EXPECT_TRUE(again.minimal);
  EXPECT_EQ(again.text, first.text);
  // Told that the second run showed nothing (the guest died in it on
  // another bug), it is not 1-minimal, and says why.
  learned[confirmation_hash(small)] = false;
  const Shrunk denied = shrink_finding(*s0.dev, f.reproducer, y, f.key, until, learned, nullptr);
  EXPECT_FALSE(denied.minimal);
  EXPECT_EQ(denied.note, kShownOnce);
}

// A provider that dereferences a bind work request's MR: every zero-length
// IBV_WR_BIND_MW without one that gets as far as the provider (the model
// posts it) crashes it, whatever the window's type (as librxe did). Up to
// then it does what the model under `p` does.
class CrashesOnABindWrWithoutAnMr : public Backend {
 public:
  explicit CrashesOnABindWrWithoutAnMr(const Profile& p) : p_(p) {}
  const std::string& name() const override { return name_; }
  int expectation_column() const override { return -1; }
  void run(const Trace& t, std::vector<Outcome>& out) override {
    const std::vector<Outcome> model = run_model(t, p_);
    out.assign(t.ops.size(), Outcome{});
    note_.clear();
    for (size_t i = 0; i < t.ops.size(); ++i) {
      if (t.ops[i].code == OpCode::wr_bind_mw && model[i].ret == Result::kOK &&
          args::wr_bind_mw{t.ops[i]}.len == 0 && args::wr_bind_mw{t.ops[i]}.mr == kNoHandle) {
        out[i].ret = Result::kCRASH;
        note_ = "op " + std::to_string(i + 1) + ": the child died of SIGSEGV; fault at librxe-rdmav34.so+0x4234";
        return;
      }
      out[i] = model[i];
    }
  }
  std::string note() const override { return note_; }

 private:
  Profile p_;
  std::string name_ = "crashes-on-bind-wr";
  std::string note_;
};

TEST(Shrink, AReproducerLeansOnNoReadingItsStartDidNot) {
  // The yardstick takes the device's reading that a bind work request on a
  // type 1 window is valid; the start binds a type 2 window, where no
  // reading is needed. Setting type=2 back to its default would still crash
  // the device, but only under that reading: the reproducer keeps type=2.
  std::string err;
  const Profile y = *parse_profile("verbs+type1_bind_wr=accept", err);
  CrashesOnABindWrWithoutAnMr dev(y);
  const Trace start = std::get<Trace>(parse_text(
      "buf b0 len=4096\nalloc_pd p0\nalloc_mw w0 pd=p0 type=2\ncreate_qp q0 pd=p0\nwr_bind_mw q0 w0\n"));
  std::vector<Outcome> out;
  dev.run(start, out);
  const Symptom sym = classify(start, out, run_model(start, y), dev.note());
  ASSERT_EQ(sym.key, "crash|user space: librxe-rdmav34.so+0x4234");
  const Shrunk s = shrink_finding(dev, start, y, sym.key, std::chrono::steady_clock::now() + std::chrono::seconds(60),
                                  {}, nullptr);
  EXPECT_TRUE(s.minimal) << s.note;
  EXPECT_EQ(s.text, "alloc_pd p0\nalloc_mw w0 pd=p0 type=2\ncreate_qp q0 pd=p0\nwr_bind_mw q0 w0\n");
  const uint32_t type1_bind_wr = 1u << static_cast<int>(Knob::type1_bind_wr);
  EXPECT_EQ(consulted_knobs(start, y) & type1_bind_wr, 0u);
  EXPECT_NE(consulted_knobs(std::get<Trace>(parse_text("alloc_pd p0\nalloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\n"
                                                       "wr_bind_mw q0 w0\n")),
                            y) &
                type1_bind_wr,
            0u);
}

TEST(Shrink, OutOfTimeItSaysSo) {
  Judged s0;
  auto& dev = s0.dev;
  const DeviceJudgment& j = s0.j;
  ASSERT_FALSE(j.findings.empty());
  const Shrunk s = shrink_finding(*dev, j.findings[0].reproducer, j.yardstick.profile, j.findings[0].key,
                                  std::chrono::steady_clock::now(), {}, nullptr);
  EXPECT_FALSE(s.minimal);
  EXPECT_NE(s.note.find("time"), std::string::npos);
}

}  // namespace
}  // namespace mwc::findings
