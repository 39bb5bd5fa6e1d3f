#include "cli/device_conform.hpp"

#include <chrono>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "adapters/minimize.hpp"
#include "adapters/model_backend.hpp"
#include "cli/guest.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace {

// Minimizing re-runs the device; these bound what one corpus run spends on it.
constexpr size_t kMinimizeTests = 40, kMinimizeShare = 6;

struct Compared {
  TraceVerdict verdict = TraceVerdict::match;
  std::optional<Divergence1> first;
};

// Compares a device's outcomes with a model's, op by op, up to the first
// difference: there the states part and later ops say nothing more.
Compared compare(const std::vector<Outcome>& dev, const std::vector<Outcome>& mod) {
  Compared c;
  bool ran = false;
  for (size_t i = 0; i < dev.size() && i < mod.size(); ++i) {
    ran = ran || dev[i].ret != Result::kNOTRUN;
    const Result r = dev[i].ret;
    if (r == Result::kUNSUPPORTED) return c.verdict = TraceVerdict::unsupported, c;
    if (r == Result::kNOTRUN) continue;  // unknown: a dead guest took it with it
    if (dev[i] == mod[i]) continue;
    c.first = Divergence1{i, dev[i], mod[i]};
    c.verdict = r == Result::kCRASH     ? TraceVerdict::crash
                : r == Result::kTIMEOUT ? TraceVerdict::timeout
                                        : TraceVerdict::diverge;
    return c;
  }
  if (!ran && !dev.empty() && !mod.empty()) {  // nothing came back: the device lost the trace
    c.verdict = TraceVerdict::crash;
    c.first = Divergence1{0, dev[0], mod[0]};
  }
  return c;
}

std::vector<Outcome> model_run(const Profile& p, const Trace& t) {
  ModelBackend m(p, -1);
  std::vector<Outcome> out;
  m.run(t, out);
  return out;
}

Outcome outcome_from_text(const std::string& s) {
  std::string err;
  size_t at = 0;
  Outcome o;
  if (auto p = parse_pattern(s, err, at)) {
    o.ret = p->ret.value_or(Result::kOK);
    o.wc = p->wc.value_or(WcStatus::kNONE);
    o.wc_op = p->wc_op.value_or(WcOpcode::kNONE);
    o.key = p->key.value_or(kNoKey);
  }
  return o;
}

// The guest's copy of a trace is NNNNN-NAME: returns NAME.
std::string host_name(const std::string& guest) {
  const size_t dash = guest.find('-');
  return dash == 5 && guest.find_first_not_of("0123456789") == 5 ? guest.substr(6) : guest;
}

void draw_bar(std::ostream* p, size_t done, size_t total, const std::string& what) {
  if (!p) return;
  const size_t w = 30, fill = total ? done * w / total : w;
  *p << fmt::format("\r[{}{}] {}/{} {:<40.40}", std::string(fill, '#'), std::string(w - fill, '.'),
                    done, total, what)
     << std::flush;
  if (done == total) *p << "\n";
}

}  // namespace

std::string_view verdict_name(TraceVerdict v) {
  switch (v) {
    case TraceVerdict::match: return "match";
    case TraceVerdict::diverge: return "diverge";
    case TraceVerdict::unsupported: return "unsupported";
    case TraceVerdict::crash: return "crash";
    case TraceVerdict::timeout: return "timeout";
  }
  return "?";
}

ProfileId closest_profile(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus) {
  size_t best = 0;
  ProfileId id{};
  for (int p = 0; p < kProfileCount; ++p) {
    const Profile prof = profile(static_cast<ProfileId>(p));
    size_t n = 0;
    for (size_t t = 0; t < corpus.size() && t < col.traces.size(); ++t) {
      const auto v = compare(col.traces[t].outcomes, model_run(prof, corpus[t].trace)).verdict;
      n += v == TraceVerdict::match || v == TraceVerdict::unsupported;
    }
    if (n > best) best = n, id = static_cast<ProfileId>(p);
  }
  return id;
}

DeviceColumn run_device_corpus(Backend& device, const std::vector<CorpusTrace>& corpus,
                               std::ostream* stream, std::ostream* progress) {
  DeviceColumn col;
  col.spec = device.name();
  col.label = device.name().substr(device.name().find(':') + 1);
  for (size_t i = 0; i < corpus.size(); ++i) {
    draw_bar(progress, i, corpus.size(), corpus[i].name);
    mark_trace(i, std::cerr);
    DeviceTrace dt;
    dt.trace = corpus[i].name;
    device.run(corpus[i].trace, dt.outcomes);
    dt.note = device.note();
    if (stream) {
      nlohmann::json j{{"trace", dt.trace}, {"note", dt.note}};
      for (const auto& o : dt.outcomes) j["outcomes"].push_back(to_text(o));
      *stream << j.dump() << std::endl;
    }
    col.traces.push_back(std::move(dt));
  }
  draw_bar(progress, corpus.size(), corpus.size(), "");
  mark_traces_done(std::cerr);
  return col;
}

bool shrinkable(const DeviceTrace& t, const CorpusTrace& c, ProfileId against) {
  const Compared k = compare(t.outcomes, model_run(profile(against), c.trace));
  return k.first && k.verdict != TraceVerdict::timeout &&
         t.note.find("guest kernel") == std::string::npos;
}

void minimize_divergences(Backend& device, const std::vector<CorpusTrace>& corpus,
                          ProfileId against, size_t budget, DeviceColumn& col,
                          std::ostream* stream) {
  const Profile prof = profile(against);
  // Each divergence gets a fair share of the budget (at least a few runs),
  // so that every reproducer is shrunk some, not the first ones fully.
  size_t n = 0;
  for (size_t i = 0; i < corpus.size() && i < col.traces.size(); ++i)
    n += shrinkable(col.traces[i], corpus[i], against);
  const size_t share = std::max<size_t>(kMinimizeShare, n ? budget / n : budget);
  size_t runs = 0;
  const auto left = [&] { return runs < budget; };
  for (size_t i = 0; i < corpus.size() && i < col.traces.size(); ++i) {
    if (!shrinkable(col.traces[i], corpus[i], against)) continue;
    mark_trace(i, std::cerr);
    const Compared c = compare(col.traces[i].outcomes, model_run(prof, corpus[i].trace));
    std::string text;
    if (!left()) {
      text = "# not shrunk: the shrinking budget (--minimize-runs) went to earlier traces\n" +
             print_text(corpus[i].trace);
    } else {
      // The same divergence: the device's outcome and the model's rule.
      const std::string want = to_text(c.first->device);
      const Rule rule = c.first->model.rule;
      const auto still = [&](const Trace& t) {
        if (!left()) return false;
        ++runs;
        std::vector<Outcome> dev;
        device.run(t, dev);
        const Compared k = compare(dev, model_run(prof, t));
        return k.first && k.verdict == c.verdict && to_text(k.first->device) == want &&
               k.first->model.rule == rule;
      };
      MinimizeStats st;
      Trace small = minimize(corpus[i].trace, still, std::min(kMinimizeTests, share), &st);
      small.comments.clear();
      text = fmt::format("# shrunk from {} to {} ops in {} device runs\n", st.ops_before,
                         st.ops_after, st.tests) +
             print_text(small);
    }
    col.traces[i].reproducer = text;
    if (stream)
      *stream << nlohmann::json{{"reproducer", corpus[i].name}, {"text", text}}.dump() << std::endl;
  }
  mark_traces_done(std::cerr);
}

bool read_device_stream(const std::string& text, DeviceColumn& col) {
  std::istringstream in(text);
  size_t read = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{') continue;  // console noise
    // A guest that died mid-line leaves a torn last line: skip it.
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    ++read;
    const auto find = [&](const std::string& name) -> DeviceTrace* {
      for (auto& t : col.traces)
        if (t.trace == name) return &t;
      return nullptr;
    };
    if (j.contains("trace")) {
      DeviceTrace* t = find(host_name(j.value("trace", "")));
      if (!t) continue;
      t->outcomes.clear();
      for (const auto& o : j.value("outcomes", nlohmann::json::array()))
        t->outcomes.push_back(outcome_from_text(o.get<std::string>()));
      t->note = j.value("note", "");
    } else if (j.contains("reproducer")) {
      if (DeviceTrace* t = find(host_name(j.value("reproducer", "")))) t->reproducer = j.value("text", "");
    }
  }
  return read > 0 || text.empty();
}

DeviceAnalysis analyze(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus) {
  DeviceAnalysis a;
  a.rules.assign(kRuleCount, RuleRow{});
  a.traces.resize(corpus.size());
  std::vector<std::vector<Outcome>> by_profile[kProfileCount];
  for (int p = 0; p < kProfileCount; ++p) {
    const Profile prof = profile(static_cast<ProfileId>(p));
    for (size_t t = 0; t < corpus.size(); ++t) {
      by_profile[p].push_back(model_run(prof, corpus[t].trace));
      const auto v = compare(col.traces[t].outcomes, by_profile[p].back()).verdict;
      a.matched[p] += v == TraceVerdict::match || v == TraceVerdict::unsupported;
    }
  }
  a.closest = closest_profile(col, corpus);
  const int cp = static_cast<int>(a.closest);
  for (auto& r : a.rules) r.agree = static_cast<uint8_t>((1u << kProfileCount) - 1);
  for (int p = 0; p < kProfileCount; ++p) {
    for (size_t t = 0; t < corpus.size(); ++t) {
      const auto& mod = by_profile[p][t];
      const Compared c = compare(col.traces[t].outcomes, mod);
      if (p == cp) a.traces[t] = {c.verdict, c.first};
      const size_t end = c.first ? c.first->op + 1 : mod.size();
      for (size_t i = 0; i < end && i < mod.size(); ++i) {
        if (col.traces[t].outcomes[i].ret == Result::kUNSUPPORTED) break;
        RuleRow& row = a.rules[static_cast<int>(mod[i].rule)];
        const bool bad = c.first && i == c.first->op;
        if (p == cp) row.checked++, row.failed += bad;
        if (bad) row.agree &= static_cast<uint8_t>(~(1u << p));
      }
    }
  }
  // Each knob: which of its alternatives, on the closest profile, explains
  // the device on the traces where the alternatives differ.
  for (int k = 0; k < kKnobCount; ++k) {
    const KnobDesc& kd = knob_descs()[k];
    KnobPrint kp;
    kp.matches.assign(kd.alts.size(), 0);
    for (size_t t = 0; t < corpus.size(); ++t) {
      std::vector<std::vector<Outcome>> runs;
      for (size_t alt = 0; alt < kd.alts.size(); ++alt) {
        Profile p = profile(a.closest);
        p.v[k] = static_cast<uint8_t>(alt);
        runs.push_back(model_run(p, corpus[t].trace));
      }
      bool telling = false;
      for (const auto& r : runs) telling = telling || r != runs[0];
      if (!telling) continue;
      ++kp.telling;
      for (size_t alt = 0; alt < runs.size(); ++alt) {
        const auto v = compare(col.traces[t].outcomes, runs[alt]);
        kp.matches[alt] += v.verdict == TraceVerdict::match;
      }
    }
    size_t best = 0;
    for (size_t m : kp.matches) best = std::max(best, m);
    if (kp.telling == 0) {
      kp.verdict = "not exercised";
    } else if (best == 0) {
      kp.verdict = "none";
    } else {
      std::string like;
      for (size_t alt = 0; alt < kp.matches.size(); ++alt)
        if (kp.matches[alt] == best) like += (like.empty() ? "" : " or ") + std::string(kd.alts[alt].name);
      kp.verdict = fmt::format("like {} ({}/{} telling traces)", like, best, kp.telling);
    }
    a.knobs.push_back(std::move(kp));
  }
  return a;
}

}  // namespace mwc::cli
