// The device side of conform, driven by backends that need no device: the
// model under a profile stands in for a device that behaves exactly so, a
// mutant model for one with a bug.
#include "cli/device_conform.hpp"

#include <sstream>

#include <gtest/gtest.h>

#include "cli/load.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace {

std::vector<CorpusTrace> corpus(std::initializer_list<const char*> names) {
  std::vector<CorpusTrace> c;
  std::ostringstream err;
  for (const char* n : names) {
    auto t = load_trace(std::string(std::getenv("MWCHECK_SOURCE_DIR")) + "/corpus/conformance/" + n, err);
    EXPECT_TRUE(t) << err.str();
    c.push_back({n, std::move(*t)});
  }
  return c;
}

std::unique_ptr<Backend> backend(const char* spec) {
  std::string err;
  auto b = make_backend(spec, err);
  EXPECT_TRUE(b) << err;
  return b;
}

TEST(DeviceConform, ADeviceThatIsAProfileMatchesIt) {
  const auto c = corpus({"010_bind_type1_basic.mwt", "109_knob_remote_range.mwt",
                         "106_knob_type2_invalidator.mwt", "037_inv_errors.mwt"});
  auto dev = backend("profile:rxe");
  DeviceColumn col = run_device_corpus(*dev, c, nullptr, nullptr);
  minimize_divergences(*dev, c, closest_profile(col, c), 400, col, nullptr);
  const DeviceAnalysis a = analyze(col, c);
  EXPECT_EQ(a.closest, ProfileId::rxe);
  EXPECT_EQ(a.matched[static_cast<int>(ProfileId::rxe)], c.size());
  for (const auto& t : a.traces) EXPECT_EQ(t.verdict, TraceVerdict::match);
  for (const auto& t : col.traces) EXPECT_TRUE(t.reproducer.empty());
  // The fingerprint names rxe's alternatives where the traces tell them apart.
  EXPECT_EQ(a.knobs[static_cast<int>(Knob::remote_range)].verdict.rfind("like mr_only", 0), 0u)
      << a.knobs[static_cast<int>(Knob::remote_range)].verdict;
  EXPECT_EQ(a.knobs[static_cast<int>(Knob::type2_invalidator)].verdict.rfind("like any_qp", 0), 0u);
  EXPECT_EQ(a.knobs[static_cast<int>(Knob::sq_full_errno)].verdict, "not exercised");
}

TEST(DeviceConform, ABuggyDeviceDivergesWithAShrunkReproducer) {
  const auto c = corpus({"010_bind_type1_basic.mwt", "035_type2_local_inv.mwt", "001_resources_basic.mwt"});
  auto dev = backend("mutant:stale_rkey");  // LOCAL_INV completes, the window stays bound
  DeviceColumn col = run_device_corpus(*dev, c, nullptr, nullptr);
  minimize_divergences(*dev, c, ProfileId::verbs, 400, col, nullptr);
  const DeviceAnalysis a = analyze(col, c);
  ASSERT_EQ(a.traces[1].verdict, TraceVerdict::diverge);
  const auto& f = *a.traces[1].first;
  EXPECT_NE(to_text(f.device), to_text(f.model));
  EXPECT_EQ(a.traces[0].verdict, TraceVerdict::match);
  // The reproducer is smaller and still shows the divergence.
  const auto small = std::get<Trace>(parse_text(col.traces[1].reproducer));
  EXPECT_LT(small.ops.size(), c[1].trace.ops.size());
  std::vector<Outcome> d, m;
  dev->run(small, d);
  backend("profile:verbs")->run(small, m);
  EXPECT_NE(d, m);
  // The rule that the divergence breaks fails in the table.
  EXPECT_GT(a.rules[static_cast<int>(f.model.rule)].failed, 0u);
}

TEST(DeviceConform, TheStreamReadsBackAsItWasWritten) {
  const auto c = corpus({"035_type2_local_inv.mwt", "001_resources_basic.mwt"});
  auto dev = backend("mutant:stale_rkey");
  std::ostringstream stream;
  DeviceColumn col = run_device_corpus(*dev, c, &stream, nullptr);
  minimize_divergences(*dev, c, ProfileId::verbs, 400, col, &stream);
  // The guest names its copies NNNNN-NAME; the host reads them back by NAME.
  std::string text = stream.str();
  for (size_t at; (at = text.find("\"035_type2")) != std::string::npos;) text.replace(at, 1, "\"00000-");
  DeviceColumn back;
  for (const auto& t : c) back.traces.push_back({t.name, {}, {}, {}});
  ASSERT_TRUE(read_device_stream(text + "{torn line\n", back));
  for (size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(back.traces[i].outcomes, col.traces[i].outcomes) << c[i].name;
    EXPECT_EQ(back.traces[i].reproducer, col.traces[i].reproducer) << c[i].name;
  }
}

TEST(DeviceConform, ShrinkingStopsAtItsBudgetAndSaysSo) {
  const auto c = corpus({"035_type2_local_inv.mwt"});
  auto dev = backend("mutant:stale_rkey");
  DeviceColumn col = run_device_corpus(*dev, c, nullptr, nullptr);
  minimize_divergences(*dev, c, ProfileId::verbs, 0, col, nullptr);
  EXPECT_EQ(col.traces[0].reproducer.rfind("# not shrunk", 0), 0u) << col.traces[0].reproducer;
}

TEST(DeviceConform, UnsupportedIsReportedNotDiverged) {
  const auto c = corpus({"060_det_bind_ok.mwt"});
  DeviceColumn col;
  std::vector<Outcome> out;
  backend("profile:det")->run(c[0].trace, out);
  for (size_t i = 0; i < out.size(); ++i)
    if (c[0].trace.ops[i].code == OpCode::det_bind) out[i].ret = Result::kUNSUPPORTED;
  col.traces.push_back({c[0].name, out, {}, {}});
  EXPECT_EQ(analyze(col, c).traces[0].verdict, TraceVerdict::unsupported);
  // A trace that came back with nothing at all is no match.
  for (auto& o : col.traces[0].outcomes) o.ret = Result::kNOTRUN;
  EXPECT_EQ(analyze(col, c).traces[0].verdict, TraceVerdict::crash);
}

}  // namespace
}  // namespace mwc::cli
