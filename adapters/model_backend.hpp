// The reference model as a backend.
#pragma once
#include "adapters/backend.hpp"
#include "refmodel/model.hpp"

namespace mwc {

class ModelBackend final : public Backend {
 public:
  // `column` is the profile column of expectations (-1: a knob-adjusted
  // profile, which only fallback expectations apply to).
  // `mutant` switches one real bug on; the backend is then "mutant:NAME".
  ModelBackend(Profile p, int column, Mutant mutant = Mutant::none);
  const std::string& name() const override { return name_; }
  int expectation_column() const override { return column_; }
  void run(const Trace& t, std::vector<Outcome>& outcomes) override;
  bool runs_pieces() const override { return true; }
  void begin_pieces(const Caps& caps) override;
  void run_piece(const Trace& piece, std::vector<Outcome>& outcomes) override;
  const Profile* profile() const override { return &model_.profile(); }

 private:
  Model model_;
  std::string name_;
  int column_;
};

}  // namespace mwc
