#include "adapters/model_backend.hpp"

namespace mwc {
namespace {
std::string backend_name(const Profile& p, Mutant m) {
  if (m == Mutant::none) return "profile:" + p.name;
  return "mutant:" + std::string(mutant_descs()[static_cast<int>(m) - 1].name);
}
}  // namespace

ModelBackend::ModelBackend(Profile p, int column, Mutant mutant)
    : model_(p, mutant), name_(backend_name(p, mutant)), column_(column) {}

void ModelBackend::run(const Trace& t, std::vector<Outcome>& outcomes) {
  begin_pieces(t.caps);
  run_piece(t, outcomes);
}

void ModelBackend::begin_pieces(const Caps& caps) { model_.reset(caps); }

void ModelBackend::run_piece(const Trace& piece, std::vector<Outcome>& outcomes) {
  model_.grow(piece.caps);
  outcomes.resize(piece.ops.size());
  for (size_t i = 0; i < piece.ops.size(); ++i) outcomes[i] = model_.step(piece.ops[i]);
}

}  // namespace mwc
