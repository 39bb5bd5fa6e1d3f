#include "compare/run.hpp"

namespace mwc {

std::vector<Outcome> run_model(const Trace& t, const Profile& p, Mutant mutant) {
  Model m(p, mutant);
  m.reset(t.caps);
  std::vector<Outcome> out;
  out.reserve(t.ops.size());
  for (const Op& op : t.ops) out.push_back(m.step(op));
  return out;
}

}  // namespace mwc
