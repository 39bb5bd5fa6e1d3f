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

}  // namespace mwc
