#include "adapters/model_backend.hpp"

namespace mwc {

ModelBackend::ModelBackend(Profile p, int column)
    : model_(p), name_("profile:" + p.name), column_(column) {}

void ModelBackend::run(const Trace& t, std::vector<Outcome>& outcomes) {
  model_.reset(t.caps);
  outcomes.resize(t.ops.size());
  for (size_t i = 0; i < t.ops.size(); ++i) outcomes[i] = model_.step(t.ops[i]);
}

}  // namespace mwc
