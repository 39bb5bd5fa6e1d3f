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

void check_all(const mwc::Trace& t) {
  static const std::vector<mwc::Profile> profiles = mwc::profile_variants();
  for (const mwc::Profile& p : profiles) {
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
