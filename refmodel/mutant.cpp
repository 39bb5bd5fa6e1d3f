#include "refmodel/mutant.hpp"

namespace mwc {
namespace {
constexpr MutantDesc kMutants[] = {
#define M(name, base, src, what) MutantDesc{#name, ProfileId::base, src, what},
    MWC_MUTANTS(M)
#undef M
};
}  // namespace

std::span<const MutantDesc> mutant_descs() { return kMutants; }

std::optional<Mutant> mutant_from_name(std::string_view n) {
  for (int i = 0; i < kMutantCount; ++i)
    if (kMutants[i].name == n) return static_cast<Mutant>(i + 1);
  return std::nullopt;
}

}  // namespace mwc
