// fuzz_fastpath: the replay's fast path (replay/fast_path.hpp) against
// Model::step, op by op, under every profile and every knob alternative:
// any op whose outcome or rule differs aborts. Each input runs as it is
// and "shaped": every peer request's address rebased onto the object its
// key names, the form the fast path takes, so most of them reach it.
#include <string>
#include <vector>

#include "fuzz/check.hpp"
#include "fuzz/input.hpp"
#include "replay/fast_path_diff.hpp"

namespace {

// Every profile, and each knob alternative on the verbs profile.
const std::vector<mwc::Profile>& profiles() {
  static const std::vector<mwc::Profile> ps = [] {
    std::vector<mwc::Profile> v;
    for (int c = 0; c < mwc::kProfileCount; ++c) v.push_back(mwc::profile(static_cast<mwc::ProfileId>(c)));
    const auto knobs = mwc::knob_descs();
    for (size_t k = 0; k < knobs.size(); ++k)
      for (size_t a = 0; a < knobs[k].alts.size(); ++a) {
        mwc::Profile p = mwc::profile(mwc::ProfileId::verbs);
        p.v[k] = static_cast<uint8_t>(a);
        p.name = "verbs+" + std::string(knobs[k].name) + "=" + std::string(knobs[k].alts[a].name);
        v.push_back(p);
      }
    return v;
  }();
  return ps;
}

void check_all(const mwc::Trace& t) {
  for (const mwc::Profile& p : profiles()) {
    const mwc::replay::Divergence d = mwc::replay::first_divergence(t, p);
    if (d.op < 0) continue;
    std::fprintf(stderr, "profile %s, op %lld: model %s (%s), fast path %s (%s)\n", p.name.c_str(),
                 static_cast<long long>(d.op + 1), mwc::to_text(d.model).c_str(),
                 std::string(mwc::rule_desc(d.model.rule).id).c_str(), mwc::to_text(d.fast).c_str(),
                 std::string(mwc::rule_desc(d.fast.rule).id).c_str());
    mwc::fuzz::fail("the fast path and the model disagree", &t);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const mwc::Trace t = mwc::fuzz::input_trace({data, size});
  check_all(t);
  check_all(mwc::replay::fast_shaped(t));
  return 0;
}
