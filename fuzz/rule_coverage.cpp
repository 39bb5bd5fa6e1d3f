#include "fuzz/rule_coverage.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <variant>

#include "compare/run.hpp"
#include "fuzz/conformance_texts.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::fuzz {
namespace {

// The packing: rule, return and status in 6 bits each, then 2 bits per
// knob (0: not consulted, else its alternative + 1).
constexpr int kRetShift = 6, kWcShift = 12, kAltShift = 18;
static_assert(kRuleCount <= 64 && kResultCount <= 64 && kWcStatusCount <= 64, "a branch packs each in 6 bits");
static_assert(kAltShift + 2 * kKnobCount <= 64, "a branch packs every knob in 2 bits");
#define A(name, kind, src) +1
#define K(kname, q, a, b, c, d, e) \
  static_assert(0 MWC_ALTS_##kname(A) <= 3, "a branch packs a knob's alternative + 1 in 2 bits");
MWC_KNOBS(K)
#undef K
#undef A

Result ret_of(Branch b) { return static_cast<Result>(b >> kRetShift & 63); }
WcStatus wc_of(Branch b) { return static_cast<WcStatus>(b >> kWcShift & 63); }
// Returns the alternative + 1 knob k took in b (0: not consulted).
unsigned alt_of(Branch b, int k) { return b >> (kAltShift + 2 * k) & 3; }

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.resize(w, ' ');
  return s;
}

}  // namespace

Branch branch_of(const Outcome& o, const Profile& p) {
  Branch b = static_cast<Branch>(o.rule) | static_cast<Branch>(o.ret) << kRetShift |
             static_cast<Branch>(o.wc) << kWcShift;
  for (int k = 0; k < kKnobCount; ++k)
    if (o.knobs >> k & 1) b |= static_cast<Branch>(p.v[k] + 1) << (kAltShift + 2 * k);
  return b;
}

Rule branch_rule(Branch b) { return static_cast<Rule>(b & 63); }

bool is_refusal(Branch b) {
  const Rule r = branch_rule(b);
  if (r == Rule::handle_live || by_device(r)) return false;
  const Result ret = ret_of(b);
  const WcStatus wc = wc_of(b);
  return (ret != Result::kOK && ret != Result::kEMPTY && ret != Result::kSKIP) ||
         (wc != WcStatus::kNONE && wc != WcStatus::kIBV_WC_SUCCESS);
}

std::string branch_text(Branch b) {
  std::string s;
  if (ret_of(b) != Result::kOK || wc_of(b) == WcStatus::kNONE) s = std::string(name(ret_of(b)));
  if (wc_of(b) != WcStatus::kNONE) s += (s.empty() ? "" : " ") + std::string(name(wc_of(b)));
  std::string alts;
  for (int k = 0; k < kKnobCount; ++k)
    if (const unsigned a = alt_of(b, k))
      alts += (alts.empty() ? "" : " ") + std::string(knob_descs()[k].name) + "=" +
              std::string(knob_descs()[k].alts[a - 1].name);
  return alts.empty() ? s : s + " [" + alts + "]";
}

size_t RuleCoverage::add(std::span<const Outcome> outcomes, const Profile& p) {
  size_t fresh = 0;
  for (const Outcome& o : outcomes) {
    const Branch b = branch_of(o, p);
    if (!seen_.insert(b).second) continue;
    ++fresh;
    refusals_ += is_refusal(b);
  }
  return fresh;
}

std::vector<Branch> RuleCoverage::branches() const {
  std::vector<Branch> v(seen_.begin(), seen_.end());
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<Branch> corpus_branches(const Profile& p) {
  static std::mutex lock;
  static std::map<std::array<uint8_t, kKnobCount>, std::vector<Branch>> cache;
  const std::lock_guard hold(lock);
  auto [it, fresh] = cache.try_emplace(p.v);
  if (!fresh) return it->second;
  RuleCoverage cov;
  for (const auto& e : conformance_texts()) {
    auto parsed = parse_text(e.text);
    const Trace* t = std::get_if<Trace>(&parsed);
    if (!t) continue;  // the corpus's own tests hold it parseable
    cov.add(run_model(*t, p), p);
  }
  return it->second = cov.branches();
}

std::string coverage_table(const RuleCoverage& cov, std::span<const Profile> profiles) {
  // The branches the corpus reaches under this run's profiles are the ones
  // to reach; those it reaches only under other profiles are out of reach
  // (a knob alternative, at that op or an earlier one, no profile here takes).
  const auto counted = [](Branch b) {
    return branch_rule(b) != Rule::handle_live && !by_device(branch_rule(b));
  };
  const auto sorted_union = [&](std::vector<Branch>& into, const std::vector<Branch>& more) {
    for (Branch b : more)
      if (counted(b)) into.push_back(b);
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
  };
  std::vector<Branch> here, known;
  for (const Profile& p : profiles) sorted_union(here, corpus_branches(p));
  std::vector<Branch> under[kProfileCount];
  for (int p = 0; p < kProfileCount; ++p) {
    under[p] = corpus_branches(profile(static_cast<ProfileId>(p)));
    sorted_union(known, under[p]);
  }
  sorted_union(known, here);
  // Returns the profiles (of the five) whose corpus run reaches b.
  const auto reached_under = [&](Branch b) {
    std::string names;
    for (int p = 0; p < kProfileCount; ++p)
      if (std::binary_search(under[p].begin(), under[p].end(), b))
        names += (names.empty() ? "" : ", ") + std::string(profile_descs()[p].name);
    return names;
  };

  std::string names;
  std::vector<std::string_view> said;  // a mutant's profile is its base's: named once
  for (const Profile& p : profiles)
    if (std::find(said.begin(), said.end(), p.name) == said.end())
      said.push_back(p.name), names += (names.empty() ? "" : ", ") + p.name;
  std::string out = "rule coverage under " + names +
                    ": branches (rule, outcome, knob alternatives) reached / those the conformance corpus shows\n";
  size_t total = 0, reached = 0, refusals = 0, refusals_hit = 0, out_of_reach = 0;
  std::string unseen;
  for (int r = 0; r < kRuleCount; ++r) {
    const Rule rule = static_cast<Rule>(r);
    if (rule == Rule::handle_live || by_device(rule)) continue;
    std::vector<Branch> mine, elsewhere;
    for (Branch b : known)
      if (branch_rule(b) == rule)
        (std::binary_search(here.begin(), here.end(), b) ? mine : elsewhere).push_back(b);
    if (mine.empty() && elsewhere.empty()) {
      unseen += " " + std::string(rule_desc(rule).id);
      continue;
    }
    size_t hit = 0;
    std::string missing;
    for (Branch b : mine) {
      const bool got = cov.reached(b);
      hit += got;
      refusals += is_refusal(b);
      refusals_hit += got && is_refusal(b);
      if (!got) missing += "\n      never reached: " + branch_text(b);
    }
    for (Branch b : elsewhere)
      missing += "\n      out of reach: " + branch_text(b) + ": only under " + reached_under(b);
    total += mine.size();
    reached += hit;
    out_of_reach += elsewhere.size();
    out += "  " + pad(std::string(rule_desc(rule).id), 28) + std::to_string(hit) + "/" +
           std::to_string(mine.size()) + missing + "\n";
  }
  // Branches the corpus never shows, counted per rule: where the fuzzer
  // went beyond it.
  size_t beyond = 0;
  std::vector<int> per_rule(kRuleCount);
  for (Branch b : cov.branches())
    if (counted(b) && !std::binary_search(known.begin(), known.end(), b))
      ++beyond, ++per_rule[static_cast<int>(branch_rule(b))];
  if (beyond) {
    out += "branches reached beyond the corpus: " + std::to_string(beyond) + " (";
    std::string list;
    for (int r = 0; r < kRuleCount; ++r)
      if (per_rule[r])
        list += (list.empty() ? "" : ", ") + std::string(rule_desc(static_cast<Rule>(r)).id) + " " +
                std::to_string(per_rule[r]);
    out += list + ")\n";
  }
  if (!unseen.empty()) out += "rules the corpus never reaches:" + unseen + "\n";
  out += "rule coverage: " + std::to_string(reached) + " of " + std::to_string(total) + " branches reached (" +
         std::to_string(refusals_hit) + " of " + std::to_string(refusals) + " refusals); " +
         std::to_string(out_of_reach) + " out of reach (only other profiles' knob alternatives reach them)\n";
  return out;
}

}  // namespace mwc::fuzz
