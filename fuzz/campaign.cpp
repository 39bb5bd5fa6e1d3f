#include "fuzz/campaign.hpp"

#include <chrono>
#include <set>
#include <tuple>

#include "adapters/minimize.hpp"
#include "fuzz/input.hpp"
#include "fuzz/mutator.hpp"

namespace mwc::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
using Signature = std::tuple<int, int, int>;  // op code, rule of A, rule of B

// Coverage of (op, rule of A, rule of B) triples, of consecutive rules on
// each side (a cheap stand-in for the state an op found), and of ops and
// rules alone.
struct Coverage {
  std::vector<bool> triples = std::vector<bool>(size_t{kOpCount} * kRuleCount * kRuleCount);
  std::vector<bool> pairs = std::vector<bool>(size_t{2} * kRuleCount * kRuleCount);
  std::vector<bool> ops = std::vector<bool>(kOpCount), rules = std::vector<bool>(kRuleCount);
  int nops = 0, nrules = 0;

  static void mark(std::vector<bool>& v, size_t i, int& n) {
    if (!v[i]) v[i] = true, ++n;
  }
  // Notes what a run reached; returns whether any triple is new.
  bool add(const Trace& t, const std::vector<Outcome>& oa, const std::vector<Outcome>& ob) {
    bool fresh = false;
    int prev_a = 0, prev_b = 0;
    const auto pair = [&](int side, int& prev, Rule r) {
      if (r == Rule::handle_live || by_device(r)) return;
      const size_t k = (size_t(side) * kRuleCount + prev) * kRuleCount + static_cast<int>(r);
      if (!pairs[k]) pairs[k] = true, fresh = true;
      prev = static_cast<int>(r);
    };
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const int op = static_cast<int>(t.ops[i].code);
      const int ra = static_cast<int>(oa[i].rule), rb = static_cast<int>(ob[i].rule);
      const size_t k = (size_t(op) * kRuleCount + ra) * kRuleCount + rb;
      if (!triples[k]) triples[k] = true, fresh = true;
      pair(0, prev_a, oa[i].rule);
      pair(1, prev_b, ob[i].rule);
      const auto decided = [](Rule r) { return r != Rule::handle_live && !by_device(r); };
      if (decided(oa[i].rule) || decided(ob[i].rule)) {
        int unused = 0;
        mark(ops, op, unused);
      }
      mark(rules, ra, nrules);
      mark(rules, rb, nrules);
    }
    nops = 0;
    for (bool b : ops) nops += b;
    return fresh;
  }
};

}  // namespace

std::vector<Finding> run_campaign(Backend& a, Backend& b, const std::vector<Trace>& seeds,
                                  const CampaignOptions& o, const CampaignHooks& hooks,
                                  CampaignStatus& st) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::vector<Trace> pool;
  for (const Trace& s : seeds) pool.push_back(fuzz_form(s));
  const size_t nseeds = pool.size();
  if (pool.empty()) pool.emplace_back().caps = kFuzzCaps;

  Rng rng(o.seed);
  Coverage cov;
  RuleCoverage branches;
  std::vector<size_t> favored;  // pool entries that reached a new rule branch
  // The model sides' knob values, which a branch names (a device has none).
  const Profile none;
  const Profile& pa = a.profile() ? *a.profile() : none;
  const Profile& pb = b.profile() ? *b.profile() : none;
  std::set<Signature> seen;
  std::vector<Finding> findings;
  std::vector<Outcome> oa, ob;
  auto next_report = 1.0;
  st = {};
  for (uint64_t run = 0; o.runs == 0 || run < o.runs; ++run) {
    if ((run & 63) == 0) {
      st.seconds = elapsed();
      if (o.seconds > 0 && st.seconds >= o.seconds) break;
      if (hooks.progress && st.seconds >= next_report) {
        hooks.progress(st);
        next_report = st.seconds + 1;
      }
    }
    // The seeds first, as they are; then mutants and crossovers of the pool.
    // Half the parents are inputs that reached a rule branch first: a few
    // hundred among thousands, each a step the rules care about.
    const bool fav = !favored.empty() && rng.chance(1, 2);
    Trace t = run < nseeds ? pool[run] : fav ? pool[favored[rng.below(favored.size())]] : pool[rng.below(pool.size())];
    if (run >= nseeds) {
      if (pool.size() > 1 && rng.chance(1, 10))
        t = crossover(t, pool[rng.below(pool.size())], rng, o.max_ops);
      mutate(t, rng, o.max_ops);
    }
    st.runs = run + 1;
    const auto d = first_divergence(t, a, b, oa, ob);
    const bool new_triple = cov.add(t, oa, ob);
    // Both sides' branches are added, whether or not the first was new.
    const bool new_a = a.profile() && branches.add(oa, pa);
    const bool new_b = b.profile() && branches.add(ob, pb);
    const bool new_branch = new_a || new_b;
    if (new_branch) favored.push_back(run < nseeds ? run : pool.size());
    if ((new_triple || new_branch) && run >= nseeds) pool.push_back(t);
    st.branches = branches.size();
    st.refusals = branches.refusals();
    st.ops_covered = cov.nops;
    st.rules_covered = cov.nrules;
    st.pool = pool.size();
    if (!d || d->explained) continue;
    const Signature sig{static_cast<int>(t.ops[d->op].code), static_cast<int>(d->a.rule),
                        static_cast<int>(d->b.rule)};
    if (!seen.insert(sig).second) continue;
    Finding f;
    f.run = run + 1;
    f.seconds = elapsed();
    std::vector<Outcome> ma, mb;
    const auto same = [&](const Trace& c) {
      const auto e = first_divergence(c, a, b, ma, mb);
      return e && !e->explained &&
             Signature{static_cast<int>(c.ops[e->op].code), static_cast<int>(e->a.rule),
                       static_cast<int>(e->b.rule)} == sig;
    };
    f.trace = o.minimize ? minimize(t, same) : t;
    f.divergence = *first_divergence(f.trace, a, b, ma, mb);
    findings.push_back(std::move(f));
    st.findings = findings.size();
    if (hooks.finding) hooks.finding(findings.back());
    if (!o.keep_going) break;
  }
  st.seconds = elapsed();
  st.rules_seen = cov.rules;
  st.coverage = std::move(branches);
  return findings;
}

}  // namespace mwc::fuzz
