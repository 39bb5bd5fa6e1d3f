// Built with MWCHECK_BREAKABLE_MODEL: the model and the trace prover run
// on domains whose rule templates can be broken one at a time.
#include <gtest/gtest.h>

#include <iostream>

#include "refmodel/broken_rules.hpp"
#include "refmodel/text_codec.hpp"
#include "smt/domain.hpp"
#include "smt/trace_search.hpp"

namespace mwc::smt {
namespace {

// Breaking any one rule template makes at least one invariant fail, with a
// counterexample, under a profile where the template decides something
// (a knob alternative can make a template a constant: mw_read_backed reads
// LOCAL_READ only where the profile requires it).
TEST(TraceBreaking, BreakingAnyRuleTemplateBreaksAnInvariant) {
  for (int f = 0; f < kRuleFnCount; ++f) {
    BreakRule<Broken<Concrete>> model(f);
    BreakRule<Broken<Sym>> prover(f);
    std::string broke;
    for (ProfileId id : {ProfileId::ibta, ProfileId::det}) {
      const auto r = search_traces(profile(id), ProfileId::ibta, 6, Scope{});
      for (int i = 0; i < kInvariantCount; ++i)
        if (r.cex[i] && broke.empty())
          broke = std::string(profile(id).name) + " " + std::string(invariant_desc(Invariant(i)).name) +
                  " (" + std::to_string(r.cex[i]->verbs) + " verbs): " + r.cex[i]->what;
      if (!broke.empty()) break;
    }
    EXPECT_FALSE(broke.empty()) << "breaking " << kRuleFnNames[f] << " breaks no invariant";
    std::cout << "breaking " << kRuleFnNames[f] << ": " << broke << "\n";
  }
}

}  // namespace
}  // namespace mwc::smt
