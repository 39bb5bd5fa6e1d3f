// fuzz_model: under every profile, the model's invariants hold after every
// op of any trace, and a second run of the same trace gives the same
// outcomes, rules and consulted knobs.
#include <vector>

#include "fuzz/check.hpp"
#include "fuzz/input.hpp"
#include "refmodel/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mwc;
  const Trace t = fuzz::input_trace({data, size});
  static std::vector<Outcome> first;
  for (int p = 0; p < kProfileCount; ++p) {
    Model m(profile(static_cast<ProfileId>(p)));
    for (int run = 0; run < 2; ++run) {
      m.reset(t.caps);
      first.resize(t.ops.size());
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const Outcome o = m.step(t.ops[i]);
        if (const char* broken = m.check_invariants()) {
          std::fprintf(stderr, "profile %s, op %zu: %s\n", m.profile().name.c_str(), i + 1, broken);
          fuzz::fail("a model invariant broke", &t);
        }
        if (run == 0) {
          first[i] = o;
          continue;
        }
        const bool same = o == first[i] && o.rule == first[i].rule && o.knobs == first[i].knobs;
        fuzz::check(same, "the model is not deterministic", &t);
      }
    }
  }
  return 0;
}
