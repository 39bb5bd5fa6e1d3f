// Judging devices, with backends that need no device: the model under a
// profile stands in for a device that behaves exactly so, a mutant model
// for one with a known bug.
#include "findings/judge.hpp"

#include <algorithm>

#include "findings/baseline.hpp"

#include <gtest/gtest.h>

#include "findings/test_corpus.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::findings {
namespace {
using testing::backend;
using testing::corpus;

DeviceJudgment judged(const char* device, const std::vector<CorpusTrace>& c,
                      std::vector<ProfileId> ys = default_yardsticks()) {
  auto dev = backend(device);
  return judge_device(run_device_corpus(*dev, c, nullptr, nullptr), c, ys);
}

const std::vector<CorpusTrace>& whole() {
  static const auto c = corpus({"010_bind_type1_basic.mwt", "101_knob_bind_errors.mwt",
                                "102_knob_zero_length_type2.mwt", "103_knob_mw_access.mwt",
                                "104_knob_dereg_bound.mwt", "105_knob_failed_bind.mwt",
                                "106_knob_type2_invalidator.mwt", "107_knob_type1_bind_wr.mwt",
                                "109_knob_remote_range.mwt", "111_knob_zero_based_type1.mwt",
                                "035_type2_local_inv.mwt", "058_remote_range_edges.mwt"});
  return c;
}

bool has(const DeviceJudgment& j, Severity s, std::string_view rule) {
  for (const auto& f : j.findings)
    if (f.severity == s && f.rule_id == rule) return true;
  return false;
}

TEST(Judge, ADeviceThatIsASpecificationHasNoFindings) {
  const DeviceJudgment j = judged("profile:verbs", whole());
  EXPECT_TRUE(j.findings.empty()) << j.findings[0].summary;
  EXPECT_EQ(j.matched[j.closest].profile, "verbs");
  // Judged by DET alone, its readings where DET's differ are still readings.
  const auto by_det = judged("profile:verbs", whole(), {ProfileId::det});
  for (const auto& f : by_det.findings) ADD_FAILURE() << f.summary << " " << by_det.yardstick.profile.name;
}

TEST(Judge, TheSendQueueIsAsDeepAsTheDeviceGrants) {
  // Asked for 2, the device grants 3 (as rxe does: 2^k - 1): a third post
  // succeeds, and must.
  const char* text =
      "alloc_pd p0\ncreate_qp q0 pd=p0 depth=2 sig_all=0\nwr_send q0\nwr_send q0\nwr_send q0\nwr_send q0\n";
  std::vector<CorpusTrace> c{{"depth.mwt", std::get<Trace>(parse_text(text))}};
  const std::vector<CorpusTrace> granted{{"depth.mwt", with_granted_depths(c[0].trace, {1, 3, 3, 7})}};
  ASSERT_NE(print_text(granted[0].trace).find("depth=3"), std::string::npos);
  auto dev = backend("profile:verbs");
  DeviceColumn col = run_device_corpus(*dev, granted, nullptr, nullptr);  // OK, OK, OK, ENOMEM
  EXPECT_EQ(judge_device(col, c, default_yardsticks()).symptoms[0].verdict, Verdict::unknown);
  col.send_depths = {1, 3, 3, 7};
  const DeviceJudgment j = judge_device(col, c, default_yardsticks());
  EXPECT_EQ(j.symptoms[0].verdict, Verdict::match);
  // Refusing the third would now be a finding.
  col.traces[0].outcomes[4].ret = Result::kENOMEM;
  EXPECT_EQ(judge_device(col, c, default_yardsticks()).symptoms[0].verdict, Verdict::finding);
}

TEST(Judge, ADriverProfileIsNoYardstick) {
  // A device that does exactly what the rxe profile says is still wrong
  // wherever that profile takes a deviation.
  const DeviceJudgment j = judged("profile:rxe", whole());
  EXPECT_EQ(j.matched[j.closest].profile, "rxe");  // it resembles rxe ...
  EXPECT_TRUE(has(j, Severity::security, "remote.range")) << "outside the window";
  // ... its readings are adopted, its deviations are not.
  const auto& k = j.yardstick.knobs;
  EXPECT_TRUE(k[static_cast<int>(Knob::dereg_bound)].adopted);  // einval: a reading
  EXPECT_EQ(j.yardstick.profile[Knob::dereg_bound], alt::dereg_bound::einval);
  EXPECT_FALSE(k[static_cast<int>(Knob::remote_range)].adopted);
  EXPECT_EQ(k[static_cast<int>(Knob::remote_range)].follows, alt::remote_range::mr_only);
  EXPECT_EQ(j.yardstick.profile[Knob::remote_range], alt::remote_range::window);
  EXPECT_NE(j.yardstick.profile.name.find("dereg_bound=einval"), std::string::npos) << j.yardstick.profile.name;
  for (const auto& f : j.findings) EXPECT_NE(f.rule_id, "mr.dereg_bound") << f.summary;
}

TEST(Judge, ADriverThatChangedResemblesTheReleaseThatHasTheChange) {
  // rxe 6.12 refuses a type 1 bind through a QP of another PD; 6.1 binds it.
  std::vector<CorpusTrace> c = whole();
  for (auto& t : corpus({"115_knob_bind_qp_pd.mwt"})) c.push_back(t);
  const DeviceJudgment now = judged("profile:rxe@6.12", c), then = judged("profile:rxe", c);
  ASSERT_EQ(now.matched.size(), static_cast<size_t>(kProfileCount) + release_profiles().size());
  EXPECT_EQ(now.matched[now.closest].profile, "rxe@6.12");
  EXPECT_EQ(then.matched[then.closest].profile, "rxe");
  const auto traces = [](const DeviceJudgment& j, std::string_view p) {
    for (const auto& m : j.matched)
      if (m.profile == p) return m.traces;
    ADD_FAILURE() << p << " not matched";
    return size_t{0};
  };
  EXPECT_EQ(traces(now, "rxe@6.12"), c.size());
  // All but the bind_qp_pd trace and those where a request fails at the requester.
  EXPECT_LT(traces(now, "rxe"), c.size() - 1);
  EXPECT_EQ(traces(then, "rxe"), c.size());
  EXPECT_LT(traces(then, "rxe@6.12"), c.size());
  // Which release it resembles says nothing of the yardstick: both readings are IBTA's or DET's.
  EXPECT_EQ(now.yardstick.profile[Knob::bind_qp_pd], alt::bind_qp_pd::always);
  EXPECT_EQ(then.yardstick.profile[Knob::bind_qp_pd], alt::bind_qp_pd::type2_only);
}

TEST(Judge, OfReleasesMatchingAsManyTracesTheOneGoingFurtherIsClosest) {
  // A device refuses the type 1 bind through a QP of another PD, as
  // rxe@6.12 says, but completes it with a status no profile gives: no
  // profile matches the trace to its end, and rxe@6.12 matches one op more
  // than rxe (which takes the bind).
  const auto c = corpus({"010_bind_type1_basic.mwt", "115_knob_bind_qp_pd.mwt"});
  auto dev = backend("profile:rxe@6.12");
  DeviceColumn col = run_device_corpus(*dev, c, nullptr, nullptr);
  Outcome& poll = col.traces[1].outcomes[8];
  ASSERT_EQ(poll.wc, WcStatus::kIBV_WC_WR_FLUSH_ERR);  // rxe@6.12's own failed_request_status
  poll.wc = WcStatus::kIBV_WC_GENERAL_ERR;
  const DeviceJudgment j = judge_device(col, c, default_yardsticks());
  const auto of = [&](std::string_view p) {
    return *std::find_if(j.matched.begin(), j.matched.end(), [&](const ProfileMatch& m) { return m.profile == p; });
  };
  EXPECT_EQ(of("rxe").traces, 1u);
  EXPECT_EQ(of("rxe@6.12").traces, 1u);
  EXPECT_EQ(of("rxe@6.12").ops, of("rxe").ops + 1);
  EXPECT_EQ(j.matched[j.closest].profile, "rxe@6.12");
}

TEST(Judge, ProfilesNoTraceTellsApartAreClosestAlike) {
  // One basic bind: every profile and release matches it to its end.
  const auto c = corpus({"010_bind_type1_basic.mwt"});
  const DeviceJudgment j = judged("profile:rxe@6.12", c);
  const std::vector<size_t> alike = closest_profiles(j);
  ASSERT_EQ(alike.size(), j.matched.size());
  EXPECT_EQ(alike[0], j.closest);
  // With a trace that tells the releases apart, one is closest alone.
  const DeviceJudgment k = judged("profile:rxe@6.12", corpus({"010_bind_type1_basic.mwt", "115_knob_bind_qp_pd.mwt"}));
  for (const size_t p : closest_profiles(k)) EXPECT_NE(k.matched[p].profile, "rxe");
  EXPECT_EQ(k.matched[closest_profiles(k)[0]].profile, k.matched[k.closest].profile);
}

TEST(Judge, AKnownBugIsASecurityFinding) {
  const DeviceJudgment j = judged("mutant:stale_rkey", testing::stale_key_trace());  // LOCAL_INV leaves the key valid
  ASSERT_FALSE(j.findings.empty());
  EXPECT_EQ(j.findings[0].severity, Severity::security) << j.findings[0].summary;
  EXPECT_GT(j.rules[static_cast<int>(Rule::remote_rkey)].failed, 0u);
}

TEST(Judge, AWindowFlagNoRightNeedsIsAMissingCheckNotAGrant) {
  // rxe binds a window with LOCAL_WRITE among its flags (mw_access=any): the
  // window grants REMOTE_READ, which the same bind without LOCAL_WRITE gets.
  const auto c = corpus({"103_knob_mw_access.mwt"});
  const DeviceJudgment j = judged("profile:rxe", c);
  ASSERT_TRUE(has(j, Severity::conformance, "bind.mw_access"));
  EXPECT_FALSE(has(j, Severity::security, "bind.mw_access"));
  // The same flag beside REMOTE_WRITE on an MR without LOCAL_WRITE: the
  // specification refuses the window's right too (C10-74), so a device that
  // binds it grants what the specification refuses.
  const char* text =
      "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_READ|REMOTE_READ|MW_BIND\n"
      "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\nbind_mw q0 w0 mr=m0 addr=b0 len=64 access=LOCAL_WRITE|REMOTE_WRITE\n";
  const std::vector<CorpusTrace> w{{"write.mwt", std::get<Trace>(parse_text(text))}};
  auto dev = backend("profile:verbs");
  DeviceColumn col = run_device_corpus(*dev, w, nullptr, nullptr);
  ASSERT_EQ(col.traces[0].outcomes.size(), 6u);
  col.traces[0].outcomes[5] = Outcome{};  // bound: OK key=+1
  col.traces[0].outcomes[5].key = 1;
  const DeviceJudgment k = judge_device(col, w, default_yardsticks());
  EXPECT_TRUE(has(k, Severity::security, "bind.mw_access")) << (k.findings.empty() ? "" : k.findings[0].summary);
}

TEST(Judge, UnsupportedVerbsAreListedNotFailed) {
  const auto c = corpus({"060_det_bind_ok.mwt"});
  auto det = backend("profile:det");
  DeviceColumn col = run_device_corpus(*det, c, nullptr, nullptr);
  for (size_t i = 0; i < c[0].trace.ops.size(); ++i)
    if (c[0].trace.ops[i].code == OpCode::det_bind) col.traces[0].outcomes[i].ret = Result::kUNSUPPORTED;
  const DeviceJudgment j = judge_device(col, c, default_yardsticks());
  EXPECT_EQ(j.symptoms[0].verdict, Verdict::unsupported);
  ASSERT_EQ(j.findings.size(), 1u);
  EXPECT_EQ(j.findings[0].severity, Severity::unsupported);
}

TEST(Judge, TheStreamReadsBackAsItWasWritten) {
  const auto c = corpus({"035_type2_local_inv.mwt", "001_resources_basic.mwt"});
  auto dev = backend("mutant:stale_rkey");
  std::ostringstream stream;
  DeviceColumn col = run_device_corpus(*dev, c, &stream, nullptr);
  Shrunk s{"F00000001", "buf b0 len=64\n", 9, 1, 12, true, ""};
  stream << stream_line(s) << "\n";
  // The guest names its copies NNNNN-NAME; the host reads them back by NAME.
  std::string text = stream.str();
  for (size_t at; (at = text.find("\"035_type2")) != std::string::npos;) text.replace(at, 1, "\"00000-");
  DeviceColumn back;
  for (const auto& t : c) back.traces.push_back({t.name, {}, {}});
  ASSERT_TRUE(read_device_stream(text + "{torn line\n", back));
  for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(back.traces[i].outcomes, col.traces[i].outcomes) << c[i].name;
  ASSERT_EQ(back.shrunk.size(), 1u);
  EXPECT_EQ(back.shrunk[0].text, s.text);
  EXPECT_TRUE(back.shrunk[0].minimal);
}

TEST(Judge, WhatTheDeviceWasSeenToDoCrossesTheStream) {
  // The responder's refusal under a requester's success is no part of the
  // outcome's text: the stream carries it beside the outcomes.
  DeviceColumn back;
  back.traces.push_back({"t.mwt", {}, {}});
  ASSERT_TRUE(read_device_stream(
      R"({"trace":"00000-t.mwt","note":"","outcomes":["OK","IBV_WC_SUCCESS"],)"
      R"("seen":[{"op":1,"rule":"device.responder_refused"},{"op":0,"rule":"inv.rkey"},{"op":7,"rule":"x"}]})"
      "\n",
      back));
  ASSERT_EQ(back.traces[0].outcomes.size(), 2u);
  EXPECT_EQ(back.traces[0].outcomes[1].rule, Rule::responder_refused);
  EXPECT_EQ(back.traces[0].outcomes[0].rule, Rule::observed);  // a model's rule is not the device's to claim
}

TEST(Judge, StreamFieldsOfAnotherTypeAreAbsentOnes) {
  // The guest's console is read as it comes: a line whose fields have
  // other types than the stream's (a guest gone wrong, console noise that
  // parses) changes nothing it cannot say, and never stops the reading.
  DeviceColumn back;
  back.traces.push_back({"t.mwt", {}, {}});
  back.send_depths = {4};
  const std::string text =
      R"({"trace":"00000-t.mwt","note":5,"outcomes":["OK",7,"IBV_WC_SUCCESS"],)"
      R"("seen":[{"op":"1","rule":"device.responder_refused"},{"op":-1,"rule":"device.responder_refused"},)"
      R"({"op":1.5,"rule":"device.responder_refused"},{"op":1,"rule":7},7,[1],null]})"
      "\n"
      R"({"trace":7,"outcomes":"OK"})"
      "\n"
      R"({"kernel":"00000-t.mwt","account":["WARNING"]})"
      "\n"
      R"({"send_depths":[16,-1,"8",1.5,4294967296,32]})"
      "\n"
      R"({"shrunk":5,"text":[],"ops_before":"9","ops_after":-2,"runs":1e300,"minimal":"yes","note":{}})"
      "\n";
  ASSERT_TRUE(read_device_stream(text, back));
  ASSERT_EQ(back.traces[0].outcomes.size(), 2u);
  EXPECT_EQ(back.traces[0].outcomes[1].rule, Rule::observed);  // no "seen" entry names op 1 as it should
  EXPECT_EQ(back.traces[0].note, "");
  EXPECT_EQ(back.traces[0].kernel, "");
  EXPECT_EQ(back.send_depths, (std::vector<uint32_t>{16, 0, 0, 0, 0, 32}));
  ASSERT_EQ(back.shrunk.size(), 1u);
  EXPECT_EQ(back.shrunk[0].finding, "");
  EXPECT_EQ(back.shrunk[0].text, "");
  EXPECT_EQ(back.shrunk[0].ops_before, 0u);
  EXPECT_EQ(back.shrunk[0].ops_after, 0u);
  EXPECT_EQ(back.shrunk[0].runs, 0u);
  EXPECT_FALSE(back.shrunk[0].minimal);
  EXPECT_EQ(back.shrunk[0].note, "");
}

TEST(Judge, WhatTheKernelReportedCrossesTheStreamToItsFinding) {
  const auto c = corpus({"035_type2_local_inv.mwt", "001_resources_basic.mwt"});
  auto dev = backend("mutant:stale_rkey");
  std::ostringstream stream;
  const DeviceColumn col = run_device_corpus(*dev, c, &stream, nullptr);
  // A report the guest told to the first trace (kernel_watch.hpp), after
  // both ran; a line whose account is no text is none.
  const std::string text = stream.str() +
                           R"({"kernel":"00000-035_type2_local_inv.mwt","account":"WARNING: at a.c:1 f+0x1/0x2\n"})"
                           "\n"
                           R"({"kernel":"00001-001_resources_basic.mwt","account":7})"
                           "\n";
  DeviceColumn back;
  back.label = col.label;
  for (const auto& t : c) back.traces.push_back({t.name, {}, {}});
  ASSERT_TRUE(read_device_stream(text, back));
  EXPECT_EQ(back.traces[0].kernel, "WARNING: at a.c:1 f+0x1/0x2\n");
  EXPECT_EQ(back.traces[1].kernel, "");
  const DeviceJudgment j = judge_device(back, c, default_yardsticks());
  ASSERT_EQ(j.findings.size(), 1u);
  ASSERT_EQ(j.findings[0].traces.at(0).trace, "035_type2_local_inv.mwt");
  EXPECT_EQ(j.findings[0].kernel, "WARNING: at a.c:1 f+0x1/0x2\n");
  EXPECT_EQ(j.findings[0].kernel_trace, "035_type2_local_inv.mwt");
  EXPECT_EQ(to_json(j.findings[0]).value("kernel", ""), "WARNING: at a.c:1 f+0x1/0x2\n");
  // Without it, the finding has none, and its JSON no such field.
  const DeviceJudgment none = judge_device(col, c, default_yardsticks());
  ASSERT_EQ(none.findings.size(), 1u);
  EXPECT_EQ(none.findings[0].kernel, "");
  EXPECT_FALSE(to_json(none.findings[0]).contains("kernel"));
}

TEST(Judge, AReportFromAProcesssExitNamesTheFindingWhoseBugItIs) {
  // Two findings on two traces; the kernel reports one WARNING as the first
  // trace's verb ran and the same as the second trace's process exited
  // (rxe's __rxe_cleanup, as a crashed process's QP is destroyed).
  const auto& c = whole();
  auto dev = backend("profile:rxe");
  DeviceColumn col = run_device_corpus(*dev, c, nullptr, nullptr);
  const DeviceJudgment plain = judge_device(col, c, default_yardsticks());
  ASSERT_GE(plain.findings.size(), 2u);
  const Finding &a = plain.findings[0], &b = plain.findings[1];
  ASSERT_NE(a.traces[0].trace, b.traces[0].trace);
  const auto trace = [&](const Finding& f) -> DeviceTrace& {
    return *std::find_if(col.traces.begin(), col.traces.end(),
                         [&](const DeviceTrace& d) { return d.trace == f.traces[0].trace; });
  };
  const std::string warn = "WARNING: at rxe_pool.c:255 __rxe_cleanup+0x118/0x160 [rdma_rxe]\nCall Trace:\n"
                           " rxe_destroy_qp+0x26/0x30 [rdma_rxe]\n";
  trace(a).kernel = warn + " ib_uverbs_ioctl+0xbe/0x130 [ib_uverbs]\n";
  trace(b).kernel = warn + " ib_uverbs_close+0x1f/0xb0 [ib_uverbs]\n do_exit+0x381/0xb10\n";
  const auto by_id = [](const DeviceJudgment& j, const std::string& id) {
    return *std::find_if(j.findings.begin(), j.findings.end(), [&](const Finding& f) { return f.id == id; });
  };
  DeviceJudgment j = judge_device(col, c, default_yardsticks());
  EXPECT_EQ(by_id(j, a.id).kernel_same_as, "");
  EXPECT_EQ(by_id(j, b.id).kernel_same_as, a.id);
  EXPECT_EQ(by_id(j, b.id).kernel, trace(b).kernel);  // kept whole, for report.json
  EXPECT_EQ(to_json(by_id(j, b.id)).value("kernel_same_as", ""), a.id);
  // A report from the exit that no other finding shows stays its own.
  trace(b).kernel = "WARNING: at rxe_mw.c:1 elsewhere+0x1/0x2 [rdma_rxe]\nCall Trace:\n do_exit+0x381/0xb10\n";
  j = judge_device(col, c, default_yardsticks());
  EXPECT_EQ(by_id(j, b.id).kernel_same_as, "");
  EXPECT_FALSE(to_json(by_id(j, b.id)).contains("kernel_same_as"));
  // So does one from a verb, even where another finding shows the same.
  trace(b).kernel = trace(a).kernel;
  j = judge_device(col, c, default_yardsticks());
  EXPECT_EQ(by_id(j, b.id).kernel_same_as, "");
}

}  // namespace
}  // namespace mwc::findings
