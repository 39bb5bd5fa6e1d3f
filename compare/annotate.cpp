#include "compare/annotate.hpp"

#include <map>

#include "compare/expectations.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc {

std::string annotate(const Trace& t, const std::vector<Outcome>& outcomes, int column, const std::string& who) {
  std::map<uint64_t, Mismatch> bad;
  for (auto& m : check_expectations("", t, outcomes, column)) bad.emplace(m.op, std::move(m));
  return print_text(t, {[&](uint32_t i) { return i < outcomes.size() ? to_text(outcomes[i]) : std::string(); },
                        [&](uint32_t i) {
                          const auto m = bad.find(i);
                          if (m == bad.end()) return std::string();
                          const bool device = by_device(outcomes[i].rule);  // no model rule to name
                          return "# ^ MISMATCH under " + who + ": expected " + m->second.expected +
                                 (device ? std::string() : " (rule " + m->second.rule + ")") + "\n";
                        }});
}

}  // namespace mwc
