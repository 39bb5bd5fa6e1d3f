#include "refmodel/rules.hpp"

namespace mwc {
namespace {
constexpr RuleDesc kRules[] = {
#define R(ident, id, src, stmt) RuleDesc{id, src, stmt},
    MWC_RULES(R)
#undef R
};
}  // namespace

std::span<const RuleDesc> rule_descs() { return kRules; }
const RuleDesc& rule_desc(Rule r) { return kRules[static_cast<int>(r)]; }

std::optional<Rule> rule_from_id(std::string_view id) {
  for (int r = 0; r < kRuleCount; ++r)
    if (kRules[r].id == id) return static_cast<Rule>(r);
  return std::nullopt;
}

}  // namespace mwc
