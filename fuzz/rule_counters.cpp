#include "fuzz/rule_counters.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace mwc::fuzz {
namespace {

// libFuzzer's extra counters (https://llvm.org/docs/LibFuzzer.html): one
// byte each, bumped as it counts its own edges.
constexpr size_t kCounters = 1 << 12;
__attribute__((used, section("__libfuzzer_extra_counters"))) uint8_t counters[kCounters];

// Never destroyed: the table is printed by an atexit handler, which runs
// after the destructors of statics made after it was registered.
RuleCoverage& seen() {
  static auto* c = new RuleCoverage;
  return *c;
}
std::vector<Profile>& table_profiles() {
  static auto* p = new std::vector<Profile>;
  return *p;
}

size_t slot(Branch b) {
  b ^= b >> 31;
  b *= 0x9e3779b97f4a7c15ull;
  return static_cast<size_t>(b >> 40) % kCounters;
}

}  // namespace

void count_branches(std::span<const Outcome> outcomes, const Profile& p) {
  for (const Outcome& o : outcomes) {
    uint8_t& c = counters[slot(branch_of(o, p))];
    if (c != 255) ++c;
  }
  seen().add(outcomes, p);
}

void print_table_at_exit(std::span<const Profile> profiles) {
  if (!table_profiles().empty()) return;
  table_profiles().assign(profiles.begin(), profiles.end());
  std::atexit([] { std::fputs(coverage_table(seen(), table_profiles()).c_str(), stderr); });
}

}  // namespace mwc::fuzz
