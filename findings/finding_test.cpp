// Classifying one trace's first divergence, and grouping by root cause.
#include "findings/finding.hpp"

#include <gtest/gtest.h>

#include "refmodel/text_codec.hpp"

namespace mwc::findings {
namespace {

Trace parse(const char* text) {
  auto t = parse_text(text);
  EXPECT_TRUE(std::holds_alternative<Trace>(t));
  return std::get<Trace>(t);
}

Outcome out(Result r, WcStatus wc = WcStatus::kNONE, int16_t key = kNoKey, Rule rule = Rule::remote_ok) {
  Outcome o;
  o.ret = r, o.wc = wc, o.key = key, o.rule = rule;
  return o;
}

const char* kRemote =
    "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
    "create_qp q0 pd=p0\npeer_read q0 rkey=m0 addr=m0+8\n";

TEST(Classify, AnAccessTheSpecificationRefusesIsSecurity) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  model[4] = out(Result::kOK, WcStatus::kIBV_WC_REM_ACCESS_ERR, kNoKey, Rule::remote_range);
  dev[4] = out(Result::kOK, WcStatus::kIBV_WC_SUCCESS);
  const Symptom s = classify(t, dev, model, "");
  EXPECT_EQ(s.verdict, Verdict::finding);
  EXPECT_EQ(s.severity, Severity::security);
  EXPECT_EQ(s.op, 4u);
  // The other way round (refused where it should pass) is conformance.
  const Symptom r = classify(t, model, dev, "");
  EXPECT_EQ(r.severity, Severity::conformance);
  EXPECT_NE(finding_id(s.key), finding_id(r.key));
}

TEST(Classify, AnAckedRefusalIsOneFindingWhicheverCheckRefused) {
  // The responder's receive completion refused the SEND_WITH_INV, the
  // requester was told success: the same missing NAK under every rule.
  const Trace t = parse("buf b0 len=4096\nalloc_pd p0\ncreate_qp q0 pd=p0\nalloc_mw w0 pd=p0\n"
                        "peer_send_inv q0 rkey=w0\n");
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  dev[4] = out(Result::kOK, WcStatus::kIBV_WC_SUCCESS, kNoKey, Rule::responder_refused);
  model[4] = out(Result::kOK, WcStatus::kIBV_WC_REM_INV_REQ_ERR, kNoKey, Rule::inv_type2);
  const Symptom a = classify(t, dev, model, "");
  model[4].rule = Rule::inv_rkey;
  const Symptom b = classify(t, dev, model, "");
  EXPECT_EQ(a.verdict, Verdict::finding);
  EXPECT_EQ(a.key, b.key);
  EXPECT_NE(summarize(a, "peer_send_inv").find("the responder refuses it"), std::string::npos);
  // A device that took the invalidation (no refusal seen) stays one finding per rule.
  dev[4].rule = Rule::observed;
  const Symptom c = classify(t, dev, model, "");
  model[4].rule = Rule::inv_type2;
  EXPECT_NE(c.key, classify(t, dev, model, "").key);
}

TEST(Classify, VerbsAreNamedAsUsersKnowThem) {
  Symptom s;
  s.severity = Severity::unsupported;
  s.why = "why";
  EXPECT_EQ(summarize(s, "rdma_reg_read"), "rdma_reg_read: why");
  EXPECT_EQ(summarize(s, "peer_read"), "IBV_WR_RDMA_READ from the peer: why");
}

TEST(Classify, UnsupportedVerbsAndQueueDepthAreNoFailures) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  dev[2] = out(Result::kEOPNOTSUPP);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unsupported);
  dev[2] = out(Result::kOK);
  model[3] = out(Result::kENOMEM, WcStatus::kNONE, kNoKey, Rule::post_depth);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unknown);
  // Refusing within the depth is a finding.
  std::swap(model[3], dev[3]);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::finding);
}

// An op the device never ran says whose lack it is, and which limit of
// the harness it met: only the device's own lack speaks of the device.
TEST(Classify, AnUnsupportedOpSaysWhoseLackItIs) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  dev[4] = out(Result::kUNSUPPORTED);
  const Symptom a = classify(t, dev, model, "");
  EXPECT_EQ(a.verdict, Verdict::unsupported);
  EXPECT_EQ(lack_of(dev[4].ret, t.ops[4].code), Lack::harness);
  EXPECT_NE(a.why.find("an access from the peer longer than the peer's local buffer"), std::string::npos) << a.why;
  EXPECT_EQ(a.why.find("inline"), std::string::npos) << a.why;
  dev[4] = out(Result::kOK), dev[2] = out(Result::kUNSUPPORTED);
  EXPECT_NE(classify(t, dev, model, "").why.find("a registration of more than"), std::string::npos);
  EXPECT_EQ(lack_of(Result::kUNSUPPORTED, OpCode::det_bind), Lack::library);
  dev[2] = out(Result::kEOPNOTSUPP);
  EXPECT_EQ(lack_of(dev[2].ret, t.ops[2].code), Lack::device);
  EXPECT_NE(classify(t, dev, model, "").why.find("the device does not implement the verb (EOPNOTSUPP)"),
            std::string::npos);
  // A finding, as grouped, says the same.
  const std::vector<CorpusTrace> corpus{{"t.mwt", t}};
  const auto fs = group(corpus, {a}, "dev", "verbs");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(lack_of(fs[0]), Lack::harness);
}

TEST(Classify, CrashesGroupByWhereTheyHappen) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  dev[4] = out(Result::kCRASH);
  const Symptom a = classify(t, dev, model, "op 5: the child died of SIGSEGV; its stderr: fault at librxe-rdmav34.so+0x2f1c (rxe_post_send)\n");
  EXPECT_EQ(a.severity, Severity::crash);
  EXPECT_EQ(a.signature, "user space: librxe-rdmav34.so+0x2f1c (rxe_post_send)");
  dev[4] = out(Result::kNOTRUN);
  dev[2] = out(Result::kCRASH);
  const Symptom b = classify(t, dev, model, "fault at librxe-rdmav34.so+0x2f1c (rxe_post_send)");
  EXPECT_EQ(a.key, b.key);  // another op, the same crash
  const Symptom k = classify(t, dev, model, "the guest kernel crashed in op 3:\nRIP: 0010:__rxe_put+0x12/0x60 [rdma_rxe]\n");
  EXPECT_EQ(k.signature, "kernel: __rxe_put");
  EXPECT_EQ(summarize(k, "peer_read"), "IBV_WR_RDMA_READ from the peer crashes the kernel (__rxe_put)");
  // An account that names no cause is still a crash, summarized without one.
  const Symptom u = classify(t, dev, model, "");
  EXPECT_EQ(u.severity, Severity::crash);
  EXPECT_EQ(u.signature, "");
  EXPECT_EQ(summarize(u, "peer_read"), "IBV_WR_RDMA_READ from the peer crashes the process");
}

TEST(Classify, OpsADeadDeviceNeverRanAreNotCompared) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev(5, out(Result::kNOTRUN));
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unknown);
  dev[0] = out(Result::kOK);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::match);
}

TEST(Classify, ARefusalWhoseErrnoTheSourcesLeaveOpenConforms) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  model[2] = out(Result::kEFAULT, WcStatus::kNONE, kNoKey, Rule::mr_range);
  dev[2] = out(Result::kEINVAL);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::match);
  dev[2] = out(Result::kOK);  // the kernel pins pages: past a buffer's end the model cannot tell
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unknown);
  model[2].rule = Rule::mr_access_local_write;  // an errno the man page names
  dev[2] = out(Result::kEFAULT);
  model[2].ret = Result::kEINVAL;
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::finding);
}

TEST(Classify, ABindAfterAFailedOneIsUnknown) {
  // ibv_bind_mw(3) NOTES: the consumer fixes the window's rkey when a bind
  // fails; a trace's consumer does not, so the next bind is not specified.
  const Trace t = parse(
      "buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
      "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\ncreate_qp q1 pd=p0\n"
      "bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_WRITE\n"
      "bind_mw q1 w0 mr=m0 addr=b0 len=64 access=REMOTE_READ\n");
  std::vector<Outcome> model(8, out(Result::kOK)), dev = model;
  model[6] = out(Result::kOK, WcStatus::kNONE, kNoKey, Rule::bind_local_write);  // fails at completion
  model[7] = out(Result::kOK, WcStatus::kNONE, 2, Rule::bind_ok);
  dev[6] = model[6];
  dev[7] = out(Result::kOK);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unknown);
  model[6] = out(Result::kOK, WcStatus::kNONE, 1, Rule::bind_ok);  // no failure before: a finding
  dev[6] = model[6];
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::finding);
}

TEST(Classify, AnErrorReportedAsAFlushIsOneRootCauseWhateverTheOp) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  model[4] = out(Result::kOK, WcStatus::kIBV_WC_REM_ACCESS_ERR, kNoKey, Rule::remote_range);
  dev[4] = out(Result::kOK, WcStatus::kIBV_WC_WR_FLUSH_ERR);
  const Symptom a = classify(t, dev, model, "");
  model[4] = out(Result::kOK, WcStatus::kIBV_WC_LOC_QP_OP_ERR, kNoKey, Rule::remote_transport);
  const Symptom b = classify(t, dev, model, "");
  EXPECT_EQ(a.severity, Severity::conformance);
  EXPECT_EQ(a.key, b.key);
  EXPECT_NE(summarize(a, "peer_read").find("IBV_WC_WR_FLUSH_ERR"), std::string::npos);
  // Its own error named, then the rule that gives it.
  EXPECT_NE(summarize(a, "peer_read").find("instead of its own error: here IBV_WC_REM_ACCESS_ERR ("),
            std::string::npos)
      << summarize(a, "peer_read");
}

TEST(Classify, ARefusedPostThatRunsLaterIsOneFindingAndWhatFollowsIsUnknown) {
  const Trace t = parse("alloc_pd p0\ncreate_qp q0 pd=p0 state=INIT\nwr_send q0\nmodify_qp q0 state=RTR\n"
                        "modify_qp q0 state=RTS\npoll_cq q0\nmodify_qp q0 state=SQD\n");
  std::vector<Outcome> model(7, out(Result::kOK)), dev = model;
  model[2] = out(Result::kEINVAL, WcStatus::kNONE, kNoKey, Rule::post_state);
  dev[2] = model[2];
  model[5] = out(Result::kEMPTY, WcStatus::kNONE, kNoKey, Rule::poll_empty);
  dev[5] = out(Result::kOK, WcStatus::kIBV_WC_RNR_RETRY_EXC_ERR);
  const Symptom a = classify(t, dev, model, "");
  EXPECT_EQ(a.verdict, Verdict::finding);
  EXPECT_EQ(a.key, kRefusedPostRuns);
  EXPECT_NE(summarize(a, "poll_cq").find("runs later anyway"), std::string::npos);
  // The QP's state after it is not the model's to know.
  dev[5] = model[5];
  dev[6] = out(Result::kEINVAL);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unknown);
  // Without the refused post, refusing SQD is an unsupported state.
  dev[2] = model[2] = out(Result::kOK);
  EXPECT_EQ(classify(t, dev, model, "").verdict, Verdict::unsupported);
}

TEST(Summarize, AKeyThatMovesOrStaysIsSaidInWords) {
  Symptom s;
  s.severity = Severity::security;
  s.model = out(Result::kOK, WcStatus::kNONE, kNoKey, Rule::bind_pd);
  s.device = out(Result::kOK, WcStatus::kNONE, 1);
  EXPECT_NE(summarize(s, "wr_bind_mw").find("the bind takes effect on the device (key=+1) where the specification "
                                            "refuses it"),
            std::string::npos)
      << summarize(s, "wr_bind_mw");
  s.severity = Severity::conformance;
  std::swap(s.model, s.device);
  s.model.key = 2;
  s.model.rule = Rule::bind_ok;
  EXPECT_NE(summarize(s, "wr_bind_mw").find("does not take effect on the device (the window keeps its key) where "
                                            "the specification binds it (key=+2)"),
            std::string::npos)
      << summarize(s, "wr_bind_mw");
}

TEST(OutcomeWords, ABindsBareOkBesideAKeyKeepsTheWindowsKey) {
  Finding f;
  f.reproducer = std::get<Trace>(parse_text("alloc_pd p0\nalloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\nwr_bind_mw q0 w0\n"));
  f.reproducer_op = 3;
  EXPECT_EQ(outcome_words(f, "OK", "OK key=+1"), "OK (the window keeps its key)");
  EXPECT_EQ(outcome_words(f, "OK key=+1", "OK"), "OK key=+1");
  EXPECT_EQ(outcome_words(f, "OK", "EINVAL"), "OK");
  // Not a bind: OK says all there is.
  f.reproducer_op = 2;
  EXPECT_EQ(outcome_words(f, "OK", "OK key=+1"), "OK");
}

TEST(Summarize, ACompletionThatDoesNotComeIsNotAPollThatHangs) {
  Symptom s;
  s.severity = Severity::hang;
  s.model = out(Result::kOK, WcStatus::kIBV_WC_SUCCESS, kNoKey, Rule::poll_order);
  s.model.wc_op = WcOpcode::kIBV_WC_SEND;
  s.device = out(Result::kTIMEOUT);
  EXPECT_TRUE(summarize(s, "poll_cq").starts_with("the IBV_WC_SEND completion does not arrive within the op timeout"))
      << summarize(s, "poll_cq");
}

// A call the harness stopped waiting for is said as seen: not returned
// within the limit the device's account gives, never "never".
TEST(Classify, AHangSaysHowLongTheHarnessWaited) {
  const Trace t = parse(kRemote);
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  dev[3] = out(Result::kTIMEOUT), model[3].rule = Rule::qp_create;
  const Symptom s = classify(t, dev, model, "op 4 did not finish within 11000 ms: the child was killed");
  EXPECT_EQ(s.severity, Severity::hang);
  EXPECT_EQ(s.waited_ms, 11000u);
  const std::string text = summarize(s, "create_qp");
  EXPECT_NE(text.find("does not return or complete within 11 s, when the harness stops waiting"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("never"), std::string::npos) << text;
  EXPECT_EQ(classify(t, dev, model, "op 4 did not finish within 11000").waited_ms, 0u);
  EXPECT_EQ(classify(t, dev, model, "op 4 did not finish within 99999999999 ms").waited_ms, 0u);
  EXPECT_EQ(classify(t, dev, model, "").waited_ms, 0u);
}

TEST(Group, OneRootCauseIsOneFindingWithTheShortestReproducer) {
  const Trace t = parse(kRemote);
  const Trace longer = parse((std::string("buf b1 len=64\n") + kRemote).c_str());
  std::vector<Outcome> model(5, out(Result::kOK)), dev = model;
  model[4] = out(Result::kOK, WcStatus::kIBV_WC_REM_ACCESS_ERR, kNoKey, Rule::remote_range);
  dev[4] = out(Result::kOK, WcStatus::kIBV_WC_SUCCESS);
  std::vector<Outcome> model2 = model, dev2 = dev;
  model2.insert(model2.begin(), out(Result::kOK));
  dev2.insert(dev2.begin(), out(Result::kOK));
  const std::vector<CorpusTrace> corpus = {{"b.mwt", longer}, {"a.mwt", t}};
  const std::vector<Symptom> s = {classify(longer, dev2, model2, ""), classify(t, dev, model, "")};
  const auto fs = group(corpus, s, "dev", "verbs");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].traces.size(), 2u);
  EXPECT_EQ(fs[0].reproducer.ops.size(), 5u);
  EXPECT_EQ(fs[0].severity, Severity::security);
  EXPECT_NE(fs[0].summary.find("IBV_WR_RDMA_READ from the peer"), std::string::npos) << fs[0].summary;
  // Merged with another device's run that does not show it.
  const auto m = merge({fs, {}}, {"dev", "other"});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].absent_on, std::vector<std::string>{"other"});
  // Two devices show it: the shorter reproducer wins, and what one's kernel
  // reported stays, with the trace it came from.
  Finding warned = fs[0], shorter = fs[0];
  warned.devices = {"dev"}, warned.kernel = "WARNING: at a.c:1 f\n", warned.kernel_trace = "b.mwt";
  shorter.devices = {"other"}, shorter.reproducer.ops.pop_back();
  const std::vector<std::string> labels = {"dev", "other"};
  for (const auto& both : {merge({{warned}, {shorter}}, labels), merge({{shorter}, {warned}}, labels)}) {
    ASSERT_EQ(both.size(), 1u);
    EXPECT_EQ(both[0].reproducer.ops.size(), 4u);
    EXPECT_EQ(both[0].kernel, "WARNING: at a.c:1 f\n");
    EXPECT_EQ(both[0].kernel_trace, "b.mwt");
    EXPECT_TRUE(both[0].absent_on.empty());
  }
}

}  // namespace
}  // namespace mwc::findings
