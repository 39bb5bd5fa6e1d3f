#include "adapters/divergence.hpp"

namespace mwc {

uint32_t differing_knobs(const Backend& a, const Backend& b) {
  const Profile* pa = a.profile();
  const Profile* pb = b.profile();
  if (!pa || !pb) return 0;
  uint32_t m = 0;
  for (int k = 0; k < kKnobCount; ++k)
    if (pa->v[k] != pb->v[k]) m |= 1u << k;
  return m;
}

std::optional<Divergence> first_divergence(const Trace& t, Backend& a, Backend& b,
                                           std::vector<Outcome>& oa, std::vector<Outcome>& ob) {
  a.run(t, oa);
  b.run(t, ob);
  return first_divergence(oa, ob, differing_knobs(a, b));
}

}  // namespace mwc
