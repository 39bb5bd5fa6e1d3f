// Theorems about the rule templates of refmodel/rules.hpp, stated from the
// sources (ibv_bind_mw(3), det_bind(3), IBTA) with Z3 terms and checked on
// the templates the model runs.
#pragma once
#include <string>
#include <vector>

#include <z3++.h>

#include "refmodel/rules.hpp"

namespace mwc::smt {

struct Theorem {
  std::string name;
  std::vector<Rule> rules;  // the rules.def rules it is about
  std::string statement;
  // Non-empty: the statement is false in the sources themselves; this names
  // the known counterexample (a limitation of the spec the model keeps).
  std::string known;
  // false: the claim must hold for all values (valid); true: some values
  // must satisfy it (an existence statement, shown with its witness).
  bool exists = false;
  z3::expr claim;
  std::vector<z3::expr> shown;  // the variables a counterexample names
};

// Returns the theorems, with the templates instantiated on domain D (Sym;
// tests pass Broken<Sym> to see a broken template refuted).
template <class D>
std::vector<Theorem> theorems();

enum class Status { Proved, Counterexample, Unknown };

struct Verdict {
  const Theorem* theorem = nullptr;
  Status status = Status::Unknown;
  std::string values;  // "name=0x.. name=.." of a counterexample or witness
  double ms = 0;
  // Returns whether this is the expected verdict: proved, or the known
  // counterexample of a statement the sources get wrong.
  bool as_expected() const {
    return status == (theorem->known.empty() ? Status::Proved : Status::Counterexample);
  }
};

// Z3's resource units (its "rlimit"): a budget in them gives the same
// verdict on a loaded machine as on a quiet one, where a time limit would
// not. The hardest theorem takes about 3 million, some 1.5 s here.
inline constexpr unsigned kProofBudget = 100'000'000;

// Returns the verdict on one theorem (Z3, giving up as Unknown once the
// budget of resource units is spent).
Verdict prove(const Theorem& t, unsigned budget = kProofBudget);

// Returns the text of a status: "proved", "counterexample", "unknown".
const char* status_name(Status s);

}  // namespace mwc::smt
