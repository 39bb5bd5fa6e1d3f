// fuzz_diff: the model against another backend. With --against=A
// --against=B (or MWCHECK_FUZZ_AGAINST="A,B"; libFuzzer ignores flags that
// start with --), any divergence no knob explains is a finding: a mutant,
// or later a device, against a profile. Without, every pair of profiles:
// where two profiles disagree, a knob they set differently must have been
// consulted (otherwise the model's knob accounting is wrong). The model
// sides' rule branches are libFuzzer's extra counters, and their table is
// printed at exit (fuzz/rule_counters.hpp).
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "adapters/divergence.hpp"
#include "fuzz/check.hpp"
#include "fuzz/input.hpp"
#include "fuzz/rule_counters.hpp"

namespace {
std::vector<std::unique_ptr<mwc::Backend>> backends;

void add(const std::string& spec) {
  std::string err;
  auto b = mwc::make_backend(spec, err);
  if (!b) {
    std::fprintf(stderr, "fuzz_diff: %s\n", err.c_str());
    std::exit(2);
  }
  backends.push_back(std::move(b));
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i) {
    const std::string a = (*argv)[i];
    if (a.starts_with("--against=")) add(a.substr(10));
  }
  if (const char* env = std::getenv("MWCHECK_FUZZ_AGAINST"); env && backends.empty()) {
    const std::string s = env;
    const size_t comma = s.find(',');
    add(s.substr(0, comma));
    if (comma != std::string::npos) add(s.substr(comma + 1));
  }
  if (backends.empty())
    for (const auto& p : mwc::profile_descs()) add(std::string(p.name));
  if (backends.size() < 2) {
    std::fprintf(stderr, "fuzz_diff: give two backends (--against=A --against=B)\n");
    std::exit(2);
  }
  std::vector<mwc::Profile> profiles;
  for (const auto& b : backends)
    if (b->profile()) profiles.push_back(*b->profile());
  mwc::fuzz::print_table_at_exit(profiles);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mwc;
  const Trace t = fuzz::input_trace({data, size});
  static std::vector<std::vector<Outcome>> outcomes(backends.size());
  for (size_t i = 0; i < backends.size(); ++i) {
    backends[i]->run(t, outcomes[i]);
    if (const Profile* p = backends[i]->profile()) fuzz::count_branches(outcomes[i], *p);
  }
  for (size_t i = 0; i < backends.size(); ++i) {
    for (size_t j = i + 1; j < backends.size(); ++j) {
      const auto d = first_divergence(outcomes[i], outcomes[j], differing_knobs(*backends[i], *backends[j]));
      if (!d || d->explained) continue;
      std::fprintf(stderr, "op %zu: %s\n  %s: %s (rule %s)\n  %s: %s (rule %s)\n", d->op + 1,
                   op_to_text(t.ops[d->op]).c_str(), backends[i]->name().c_str(),
                   to_text(d->a).c_str(), std::string(rule_desc(d->a.rule).id).c_str(),
                   backends[j]->name().c_str(), to_text(d->b).c_str(),
                   std::string(rule_desc(d->b.rule).id).c_str());
      fuzz::fail("two backends diverge and no knob explains it", &t);
    }
  }
  return 0;
}
