// mwcheck mutants: the mutant models of refmodel/mutants.def, each the
// model with one real bug, as `mutant:NAME` names them.
#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/json_out.hpp"
#include "refmodel/mutant.hpp"

namespace mwc::cli {

int cmd_mutants(const ListOptions& o, std::ostream& out, std::ostream&) {
  const auto base = [](const MutantDesc& m) { return profile_descs()[static_cast<int>(m.base)].name; };
  if (o.json) {
    nlohmann::ordered_json j{{"mutants", nlohmann::ordered_json::array()}};
    for (const auto& m : mutant_descs())
      j["mutants"].push_back({{"name", m.name}, {"base", base(m)}, {"what", m.what}, {"source", m.source}});
    print_json(out, j);
    return kExitOk;
  }
  size_t w = 4;
  for (const auto& m : mutant_descs()) w = std::max(w, m.name.size());
  for (const auto& m : mutant_descs()) out << fmt::format("{:<{}}  {:<5}  {}\n", m.name, w, base(m), m.what);
  out << fmt::format("\n{} mutants (mutant:NAME; the second column is the profile each corrupts)\n",
                     mutant_descs().size());
  return kExitOk;
}

}  // namespace mwc::cli
