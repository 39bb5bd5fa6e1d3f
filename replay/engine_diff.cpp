#include "replay/engine_diff.hpp"

#include <algorithm>

#include "compare/expectations.hpp"
#include "refmodel/binary_codec.hpp"
#include "refmodel/model.hpp"
#include "replay/gen.hpp"

namespace mwc::replay {

std::span<const uint8_t> records_of(const std::vector<uint8_t>& mwb) {
  const auto h = std::get<MwbHeader>(decode_header(mwb));
  const size_t after = h.strtab + (has_trailer(h.version) ? kMwbTrailerSize : 0);
  return std::span(mwb).subspan(kMwbHeaderSize, mwb.size() - kMwbHeaderSize - after);
}

Verdicts run_verdicts(const Trace& t, std::span<const Outcome> outs, int column) {
  Verdicts v;
  v.ops = t.ops.size();
  std::vector<uint32_t> checked;
  v.first = check_expectations("", t, outs, column, &checked);
  v.checked = checked.size();
  v.mismatches = v.first.size();
  return v;
}

Trace with_model_expectations(Trace t, uint64_t loose) {
  std::vector<Model> models;
  for (int c = 0; c < kProfileCount; ++c) {
    models.emplace_back(profile(static_cast<ProfileId>(c)));
    models.back().reset(t.caps);
  }
  t.expects.clear();
  std::vector<Pattern> pats(models.size());
  std::vector<Expectation> es;
  for (uint32_t i = 0; i < t.ops.size(); ++i) {
    for (size_t c = 0; c < models.size(); ++c) {
      pats[c] = exact(models[c].step(t.ops[i]));
      if ((loose >> (i % 64)) & 1) pats[c].wc_op.reset(), pats[c].key.reset();
    }
    es.clear();
    expect_by_column(pats, static_cast<size_t>(ProfileId::verbs), es);
    for (Expectation& e : es) t.expects.push_back(Expectation{i, e.fallback, e.profiles, e.pattern});
  }
  return t;
}

Verdicts replay_bytes(const std::vector<uint8_t>& mwb, const Caps& caps, const Profile& p, int column,
                      size_t step, std::vector<Outcome>* outs, size_t batch_after, BatchLoads loads,
                      BatchIsa isa) {
  Engine e(p, column, caps, static_cast<uint16_t>(mwb[4]));
  if (outs) e.record_outcomes(outs);
  e.batch_records(batch_after);
  e.batch_loads(loads);
  e.batch_isa(isa);
  std::vector<uint8_t> pending;
  const auto rec = records_of(mwb);
  for (size_t at = 0; at < rec.size(); at += step) {
    const auto piece = rec.subspan(at, std::min(step, rec.size() - at));
    pending.insert(pending.end(), piece.begin(), piece.end());
    pending.erase(pending.begin(), pending.begin() + static_cast<long>(e.feed(pending)));
  }
  return e.finish();
}

std::string verdicts_diff(const Verdicts& got, const Verdicts& want) {
  const auto count = [](const char* what, uint64_t g, uint64_t w) {
    return std::string(what) + " " + std::to_string(g) + " instead of " + std::to_string(w);
  };
  if (got.ops != want.ops) return count("ops", got.ops, want.ops);
  if (got.checked != want.checked) return count("checked", got.checked, want.checked);
  if (got.mismatches != want.mismatches) return count("mismatches", got.mismatches, want.mismatches);
  for (size_t i = 0; i < std::min(got.first.size(), want.first.size()); ++i) {
    const Mismatch &g = got.first[i], &w = want.first[i];
    if (g.op != w.op || g.text != w.text || g.observed != w.observed || g.expected != w.expected)
      return "mismatch " + std::to_string(i + 1) + ": op " + std::to_string(g.op + 1) + " " + g.text +
             " observed " + g.observed + " expected " + g.expected + ", instead of op " +
             std::to_string(w.op + 1) + " " + w.text + " observed " + w.observed + " expected " + w.expected;
  }
  if (got.first.size() != want.first.size())
    return count("mismatches kept", got.first.size(), want.first.size());
  return "";
}

std::vector<Outcome> model_outcomes(const Trace& t, const Profile& p) {
  std::vector<Outcome> outs;
  outs.reserve(t.ops.size());
  Model m(p);
  m.reset(t.caps);
  for (const Op& op : t.ops) outs.push_back(m.step(op));
  return outs;
}

std::string engine_divergence(const Trace& t, const Profile& p, int column, uint16_t version, size_t step) {
  const std::vector<Outcome> want = model_outcomes(t, p);
  return engine_divergence(t, encode_mwb(t, version), p, column, step, want, run_verdicts(t, want, column));
}

std::string engine_divergence(const Trace& t, const std::vector<uint8_t>& mwb, const Profile& p,
                              int column, size_t step, std::span<const Outcome> want, const Verdicts& run) {
  std::vector<Outcome> got;
  got.reserve(want.size());
  const Verdicts recorded = replay_bytes(mwb, t.caps, p, column, step, &got);
  if (got.size() != want.size()) return "outcomes " + std::to_string(got.size()) + " instead of " +
                                        std::to_string(want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i]) || got[i].rule != want[i].rule)
      return "op " + std::to_string(i + 1) + ": " + to_text(got[i]) + " (" +
             std::string(rule_desc(got[i].rule).id) + ") instead of " + to_text(want[i]) + " (" +
             std::string(rule_desc(want[i].rule).id) + ")";
  if (auto d = verdicts_diff(recorded, run); !d.empty()) return "verdicts: " + d;
  if (auto d = verdicts_diff(replay_bytes(mwb, t.caps, p, column, step), run); !d.empty())
    return "the record loop's verdicts: " + d;
  // Every run of compact records through the eight-at-a-time check too,
  // its words loaded each way, on each instruction set there is (a
  // version without compact records has no run to batch).
  if (!mwb::format(mwb[4]).has_compact()) return "";
  for (const BatchIsa isa : {BatchIsa::avx512, BatchIsa::avx2}) {
    if (!batch_isa_available(isa)) continue;
    for (const BatchLoads loads : {BatchLoads::words, BatchLoads::gather})
      if (auto d = verdicts_diff(replay_bytes(mwb, t.caps, p, column, step, nullptr, 0, loads, isa), run);
          !d.empty())
        return std::string("the record loop's verdicts, eight records at a time (") +
               batch_isa_name(isa) + ", words " +
               (loads == BatchLoads::gather ? "gathered" : "loaded one by one") + "): " + d;
  }
  return "";
}

}  // namespace mwc::replay
