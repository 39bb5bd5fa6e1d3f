// mwcheck power: how fast fuzzing finds each mutant model on the profile it
// corrupts (time to detect over several seeds, from the conformance corpus
// and from nothing), beside which mutants the corpus's expectations alone
// catch.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "adapters/backend.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/json_out.hpp"
#include "cli/load.hpp"
#include "fuzz/campaign.hpp"
#include "refmodel/mutant.hpp"
#include "util/progress.hpp"
#include "util/quote.hpp"

namespace mwc::cli {
namespace {

// Times to detect, in seconds, of the campaigns that found the mutant; the
// others ran out of their budget and count as slower than any.
struct Detection {
  std::vector<double> seconds;
  size_t missed = 0;
  uint64_t runs = 0;
  double total_seconds = 0;

  // Returns the i-th fastest time (a miss: infinity).
  double at(size_t i) const {
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    return i < s.size() ? s[i] : std::numeric_limits<double>::infinity();
  }
  // Returns the median over all campaigns (a miss counts as slowest).
  double median() const {
    const size_t n = seconds.size() + missed;
    return n % 2 ? at(n / 2) : (at(n / 2 - 1) + at(n / 2)) / 2;
  }
  // Returns the slowest campaign's time.
  double max() const { return at(seconds.size() + missed - 1); }
  // Returns "median / max (found/campaigns)", a miss as ">budget".
  std::string text(double budget) const {
    const auto t = [&](double v) {
      return std::isinf(v) ? fmt::format(">{:g}", budget) : fmt::format("{:.3f}", v);
    };
    return fmt::format("{} / {} ({}/{})", t(median()), t(max()), seconds.size(), seconds.size() + missed);
  }
  // Returns median, max (null: a miss), found and campaigns as JSON.
  nlohmann::ordered_json json() const {
    return {{"median", seconds_json(median())}, {"max", seconds_json(max())}, {"found", seconds.size()},
            {"campaigns", seconds.size() + missed}};
  }
};

// The worst median and max over the mutants measured, and whose they are.
struct Worst {
  double median = 0, max = 0;
  std::string median_of, max_of;
  size_t missed = 0;

  void add(const Detection& d, std::string_view mutant) {
    if (d.median() >= median) median = d.median(), median_of = mutant;
    if (d.max() >= max) max = d.max(), max_of = mutant;
    missed += d.missed;
  }
  // Returns "every seed found every mutant; worst median 1.2 s (m), worst max 3.4 s (m)".
  std::string text(double budget) const {
    const auto t = [&](double v) { return std::isinf(v) ? fmt::format(">{:g} s", budget) : fmt::format("{:.3f} s", v); };
    return fmt::format("{}; worst median {} ({}), worst max {} ({})",
                       missed ? fmt::format("{} campaigns missed", missed) : "every seed found every mutant",
                       t(median), median_of, t(max), max_of);
  }
  // Returns the worst median and max (null: a miss), whose, and the misses as JSON.
  nlohmann::ordered_json json() const {
    return {{"missed", missed}, {"worst_median", seconds_json(median)}, {"worst_median_mutant", median_of},
            {"worst_max", seconds_json(max)}, {"worst_max_mutant", max_of}};
  }
};

// Returns how many corpus traces show a mismatch against their expectations
// on backend b.
size_t corpus_catches(Backend& b, const std::vector<Trace>& corpus) {
  size_t caught = 0;
  std::vector<Outcome> out;
  for (const Trace& t : corpus) {
    b.run(t, out);
    caught += !check_expectations("", t, out, b.expectation_column()).empty();
  }
  return caught;
}

// Runs one campaign per seed; `ran` is told after each. Returns the times to detect.
Detection detect(Backend& base, Backend& mutant, const std::vector<Trace>& seeds, int nseeds,
                 double budget, const std::function<void()>& ran) {
  Detection d;
  for (int s = 1; s <= nseeds; ++s, ran()) {
    fuzz::CampaignOptions o;
    o.seed = static_cast<uint64_t>(s);
    o.seconds = budget;
    fuzz::CampaignStatus st;
    const auto found = fuzz::run_campaign(base, mutant, seeds, o, {}, st);
    if (found.empty()) ++d.missed;
    else d.seconds.push_back(found[0].seconds);
    d.runs += st.runs;
    d.total_seconds += st.seconds;
  }
  return d;
}

}  // namespace

int cmd_power(const PowerOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<MutantDesc> measured;
  for (const auto& name : o.mutants) {
    if (!mutant_from_name(name)) {
      std::string names;
      for (const auto& m : mutant_descs()) names += (names.empty() ? "" : ", ") + std::string(m.name);
      err << fmt::format("mwcheck power: error: no mutant {} (mutants: {})\n", quote(name), names);
      return kExitBadInput;
    }
    measured.push_back(mutant_descs()[static_cast<int>(*mutant_from_name(name)) - 1]);
  }
  if (o.mutants.empty()) measured.assign(mutant_descs().begin(), mutant_descs().end());
  std::vector<std::string> paths;
  std::vector<Trace> corpus;
  if (load_corpus(o.corpus, paths, corpus, err) != kExitOk) return kExitBadInput;
  nlohmann::ordered_json doc{{"seeds", o.seeds}, {"budget", o.budget}, {"mutants", nlohmann::ordered_json::array()}};
  if (!o.json)
    out << fmt::format(
      "power: {} seeds per mutant, {:g} s budget each; time to detect in seconds: median / max "
      "(campaigns that found it / campaigns)\n\n",
      o.seeds, o.budget);
  if (!o.json) {
    out << fmt::format("{:<26} {:<6} {:<15} {:<26} {:<26} {:>8}\n", "mutant", "base", "corpus catches",
                       "fuzz from corpus", "fuzz from nothing", "execs/s");
    out << std::string(112, '-') << "\n";
  }
  Worst seeded_worst, blind_worst;
  // Every campaign takes at most the budget: the estimate is a fair one.
  const size_t bar_total = measured.size() * 2 * static_cast<size_t>(o.seeds);
  Progress bar(&err, "campaigns", bar_total);
  size_t campaigns = 0;
  for (const auto& m : measured) {
    // (The bar ends after the table's last row, not inside it.)
    const auto ran = [&] { bar.update(std::min(++campaigns, bar_total - 1), std::string(m.name)); };
    bar.update(campaigns, std::string(m.name));
    std::string why;
    const std::string base_name(profile_descs()[static_cast<int>(m.base)].name);
    auto base = make_backend(base_name, why);
    auto mutant = make_backend("mutant:" + std::string(m.name), why);
    const size_t caught = corpus_catches(*mutant, corpus);
    const Detection seeded = detect(*base, *mutant, corpus, o.seeds, o.budget, ran);
    const Detection blind = detect(*base, *mutant, {}, o.seeds, o.budget, ran);
    seeded_worst.add(seeded, m.name);
    blind_worst.add(blind, m.name);
    const double execs = (seeded.runs + blind.runs) / std::max(1e-9, seeded.total_seconds + blind.total_seconds);
    if (o.json)
      doc["mutants"].push_back({{"mutant", m.name}, {"base", base_name}, {"corpus_catches", caught},
                                {"from_corpus", seeded.json()}, {"from_nothing", blind.json()},
                                {"execs_per_second", execs}});
    else
      out << fmt::format("{:<26} {:<6} {:<15} {:<26} {:<26} {:>8.0f}\n", m.name, base_name,
                         caught ? fmt::format("yes ({} traces)", caught) : "no", seeded.text(o.budget),
                         blind.text(o.budget), execs);
    if (!bar.terminal()) err << fmt::format("power: {} done\n", m.name);
  }
  bar.update(bar_total);
  if (o.json) {
    doc["from_corpus"] = seeded_worst.json();
    doc["from_nothing"] = blind_worst.json();
    print_json(out, doc);
  } else {
    out << fmt::format("\npower: {} mutants x {} seeds\n  from the corpus: {}\n  from nothing:    {}\n",
                       measured.size(), o.seeds, seeded_worst.text(o.budget), blind_worst.text(o.budget));
  }
  return seeded_worst.missed + blind_worst.missed ? kExitFail : kExitOk;
}

}  // namespace mwc::cli
