#include "compare/divergence.hpp"

namespace mwc {

std::optional<Divergence> first_divergence(const std::vector<Outcome>& oa, const std::vector<Outcome>& ob,
                                           uint32_t differ, NotRun notrun) {
  uint32_t consulted = 0;
  for (size_t i = 0; i < oa.size() && i < ob.size(); ++i) {
    consulted |= oa[i].knobs | ob[i].knobs;
    // An op a dead device never ran says nothing: it is not compared.
    if (notrun == NotRun::skipped && (oa[i].ret == Result::kNOTRUN || ob[i].ret == Result::kNOTRUN)) continue;
    if (oa[i] == ob[i]) continue;
    return Divergence{i, oa[i], ob[i], (consulted & differ) != 0};
  }
  return std::nullopt;
}

}  // namespace mwc
