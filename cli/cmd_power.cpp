// mwcheck power: how fast fuzzing finds each mutant model on the profile it
// corrupts (time to detect over several seeds, from the conformance corpus
// and from nothing), beside which mutants the corpus's expectations alone
// catch.
#include <algorithm>

#include <fmt/format.h>

#include "adapters/backend.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/load.hpp"
#include "fuzz/campaign.hpp"
#include "refmodel/mutant.hpp"

namespace mwc::cli {
namespace {

// Times to detect, in seconds, of the campaigns that found the mutant; the
// others ran out of their budget and count as slower than any.
struct Detection {
  std::vector<double> seconds;
  size_t missed = 0;
  uint64_t runs = 0;
  double total_seconds = 0;

  // Returns "median / max" over all campaigns (a miss: "> budget"), and how
  // many found it.
  std::string median_max(double budget) const {
    const size_t n = seconds.size() + missed;
    std::vector<double> s = seconds;
    std::sort(s.begin(), s.end());
    const auto at = [&](size_t i) {
      return i < s.size() ? fmt::format("{:.3f}", s[i]) : fmt::format(">{:g}", budget);
    };
    const std::string med = n % 2 ? at(n / 2)
                            : n / 2 < s.size() ? fmt::format("{:.3f}", (s[n / 2 - 1] + s[n / 2]) / 2)
                                               : at(n / 2);
    return fmt::format("{} / {} ({}/{})", med, at(n - 1), s.size(), n);
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

Detection detect(Backend& base, Backend& mutant, const std::vector<Trace>& seeds, int nseeds,
                 double budget) {
  Detection d;
  for (int s = 1; s <= nseeds; ++s) {
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
  std::vector<std::string> paths;
  std::vector<Trace> corpus;
  if (load_corpus(o.corpus, paths, corpus, err) != kExitOk) return kExitBadInput;
  out << fmt::format(
      "power: {} seeds per mutant, {:g} s budget each; time to detect in seconds: median / max "
      "(campaigns that found it / campaigns)\n\n",
      o.seeds, o.budget);
  out << fmt::format("{:<22} {:<6} {:<15} {:<26} {:<26} {:>8}\n", "mutant", "base", "corpus catches",
                     "fuzz from corpus", "fuzz from nothing", "execs/s");
  out << std::string(108, '-') << "\n";
  size_t missed = 0;
  for (const auto& m : mutant_descs()) {
    std::string why;
    const std::string base_name(profile_descs()[static_cast<int>(m.base)].name);
    auto base = make_backend(base_name, why);
    auto mutant = make_backend("mutant:" + std::string(m.name), why);
    const size_t caught = corpus_catches(*mutant, corpus);
    const Detection seeded = detect(*base, *mutant, corpus, o.seeds, o.budget);
    const Detection blind = detect(*base, *mutant, {}, o.seeds, o.budget);
    missed += seeded.missed + blind.missed;
    const double execs = (seeded.runs + blind.runs) / std::max(1e-9, seeded.total_seconds + blind.total_seconds);
    out << fmt::format("{:<22} {:<6} {:<15} {:<26} {:<26} {:>8.0f}\n", m.name, base_name,
                       caught ? fmt::format("yes ({} traces)", caught) : "no", seeded.median_max(o.budget),
                       blind.median_max(o.budget), execs);
    err << fmt::format("power: {} done\n", m.name);
  }
  out << fmt::format("\npower: {} mutants, {} campaigns missed\n", mutant_descs().size(), missed);
  return missed ? kExitFail : kExitOk;
}

}  // namespace mwc::cli
