#include "findings/judge.hpp"

#include <algorithm>

#include "adapters/divergence.hpp"
#include "adapters/kernel/oops.hpp"
#include "compare/run.hpp"

namespace mwc::findings {
namespace {

std::vector<Symptom> symptoms_of(const DeviceColumn& col, const std::vector<CorpusTrace>& corpus,
                                 const Profile& y) {
  std::vector<Symptom> s;
  for (size_t t = 0; t < corpus.size() && t < col.traces.size(); ++t) {
    s.push_back(classify(corpus[t].trace, col.traces[t].outcomes, run_model(corpus[t].trace, y),
                         col.traces[t].note));
    if (s.back().severity == Severity::security && grants_nothing_refused(corpus[t].trace, s.back(), y))
      s.back().severity = Severity::conformance;
  }
  return s;
}

// The corpus as the device ran it: a trace that fills a send queue takes
// the depths the device grants (ibv_create_qp may give more than asked,
// and then must accept as many), so the model counts the device's real
// queue. Other traces keep the author's text.
std::vector<CorpusTrace> as_granted(const std::vector<CorpusTrace>& corpus, const DeviceColumn& col) {
  std::vector<CorpusTrace> r = corpus;
  if (col.send_depths.empty()) return r;
  const Profile p = profile(ProfileId::verbs);
  for (auto& c : r) {
    const auto mod = run_model(c.trace, p);
    if (std::any_of(mod.begin(), mod.end(), [](const Outcome& o) { return o.rule == Rule::post_depth; }))
      c.trace = with_granted_depths(c.trace, col.send_depths);
  }
  return r;
}

// Names, for each finding whose kernel reports all came at its trace's
// process's exit, another finding that shows the same reports from a verb
// (kernel_same_as): the exit's cleanup reached that finding's bug (rxe's
// __rxe_cleanup WARNING as a crashed process's QP with a bound type 2
// window is destroyed), not this finding's op.
void name_exit_reports(std::vector<Finding>& fs) {
  const auto reports = [](const Finding& f) { return kernel::kernel_reports(f.kernel); };
  for (Finding& f : fs) {
    const auto mine = reports(f);
    if (mine.empty() || !std::all_of(mine.begin(), mine.end(), [](const auto& r) { return kernel::at_exit(r.account); }))
      continue;
    for (const Finding& g : fs) {
      if (&g == &f) continue;
      const auto theirs = reports(g);
      const auto shown = [&](const kernel::KernelReport& r) {
        return std::any_of(theirs.begin(), theirs.end(), [&](const kernel::KernelReport& o) {
          return !kernel::at_exit(o.account) && kernel::report_site(o.account) == kernel::report_site(r.account);
        });
      };
      if (std::all_of(mine.begin(), mine.end(), shown)) {
        f.kernel_same_as = g.id;
        break;
      }
    }
  }
}

size_t conforming(const std::vector<Symptom>& s) {
  size_t n = 0;
  for (const auto& x : s) n += x.verdict != Verdict::finding;
  return n;
}

}  // namespace

DeviceJudgment judge_device(const DeviceColumn& col, const std::vector<CorpusTrace>& asked,
                            const std::vector<ProfileId>& yardsticks) {
  const std::vector<CorpusTrace> corpus = as_granted(asked, col);
  DeviceJudgment j;
  std::vector<Observed> runs;
  for (size_t t = 0; t < corpus.size() && t < col.traces.size(); ++t)
    runs.push_back({&corpus[t].trace, &col.traces[t].outcomes});
  bool have = false;
  for (const ProfileId base : yardsticks) {
    Yardstick y = fit_yardstick(runs, base);
    auto s = symptoms_of(col, corpus, y.profile);
    if (have && conforming(s) <= conforming(j.symptoms)) continue;
    j.yardstick = std::move(y);
    j.symptoms = std::move(s);
    have = true;
  }
  j.findings = group(corpus, j.symptoms, col.label, j.yardstick.profile.name);
  // What the kernel reported as a trace of a finding ran: its first trace's that has any.
  for (Finding& f : j.findings)
    for (const TraceRef& r : f.traces) {
      const auto t = std::find_if(col.traces.begin(), col.traces.end(),
                                  [&](const DeviceTrace& d) { return d.trace == r.trace && !d.kernel.empty(); });
      if (t != col.traces.end()) {
        f.kernel = t->kernel, f.kernel_trace = t->trace;
        break;
      }
    }
  name_exit_reports(j.findings);

  // The descriptive part: how each profile, as it stands, explains the device.
  const std::vector<Profile> described = described_profiles();
  j.rules.assign(kRuleCount, RuleRow{});
  for (auto& r : j.rules) r.agree = static_cast<uint32_t>((uint64_t{1} << described.size()) - 1);
  for (size_t p = 0; p < described.size(); ++p) {
    ProfileMatch& m = j.matched.emplace_back(ProfileMatch{described[p].name, 0});
    for (size_t t = 0; t < runs.size(); ++t) {
      const auto mod = run_model(corpus[t].trace, described[p]);
      const auto d = first_divergence(*runs[t].device, mod, 0);
      m.traces += !d;
      m.ops += d ? d->op : mod.size();
      if (d) j.rules[static_cast<int>(mod[d->op].rule)].agree &= ~(uint32_t{1} << p);
    }
    const ProfileMatch& c = j.matched[j.closest];
    if (m.traces > c.traces || (m.traces == c.traces && m.ops > c.ops)) j.closest = p;
  }
  // The rule table against the yardstick: each op up to a trace's first
  // divergence was checked by the rule that decided it; a finding fails it.
  for (size_t t = 0; t < runs.size(); ++t) {
    const Symptom& s = j.symptoms[t];
    const auto mod = run_model(corpus[t].trace, j.yardstick.profile);
    const size_t end = s.verdict == Verdict::match ? mod.size() : s.op + (s.verdict == Verdict::finding);
    for (size_t i = 0; i < end && i < mod.size(); ++i) {
      if ((*runs[t].device)[i].ret == Result::kNOTRUN) continue;
      RuleRow& row = j.rules[static_cast<int>(mod[i].rule)];
      ++row.checked;
      row.failed += s.verdict == Verdict::finding && i == s.op;
    }
  }
  return j;
}

std::vector<size_t> closest_profiles(const DeviceJudgment& j) {
  std::vector<size_t> v;
  if (j.matched.empty()) return v;
  const ProfileMatch& best = j.matched[j.closest];
  v.push_back(j.closest);
  for (size_t p = 0; p < j.matched.size(); ++p)
    if (p != j.closest && j.matched[p].traces == best.traces && j.matched[p].ops == best.ops) v.push_back(p);
  return v;
}

}  // namespace mwc::findings
