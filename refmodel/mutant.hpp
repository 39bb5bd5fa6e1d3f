// Mutants: which real bug, if any, a Model runs with (mutants.def).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "refmodel/mutants.def"
#include "refmodel/profile.hpp"

namespace mwc {

enum class Mutant : uint8_t {
  none,
#define M(name, base, src, what) name,
  MWC_MUTANTS(M)
#undef M
};
inline constexpr int kMutantCount = 0
#define M(name, base, src, what) +1
    MWC_MUTANTS(M)
#undef M
    ;

struct MutantDesc {
  std::string_view name;
  ProfileId base;  // the profile the mutant corrupts
  std::string_view source;
  std::string_view what;
};
// Returns the mutant table, indexed by Mutant minus one (none has no entry).
std::span<const MutantDesc> mutant_descs();
// Returns the mutant with that name, or nothing.
std::optional<Mutant> mutant_from_name(std::string_view n);

}  // namespace mwc
