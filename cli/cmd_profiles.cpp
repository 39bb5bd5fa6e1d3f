#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "refmodel/profile.hpp"

namespace mwc::cli {

int cmd_profiles(const ProfilesOptions& o, std::ostream& out, std::ostream&) {
  const auto knobs = knob_descs();
  const auto profs = profile_descs();
  // A column per profile, then per driver's later release (rxe@6.12), so
  // that a knob only a release reads otherwise shows where.
  const std::vector<Profile> cols = described_profiles();
  if (o.json) {
    nlohmann::ordered_json j;
    for (const auto& p : profs) j["profiles"].push_back({{"name", p.name}, {"summary", p.summary}});
    for (size_t k = 0; k < knobs.size(); ++k) {
      nlohmann::ordered_json jk{{"name", knobs[k].name}, {"question", knobs[k].question}};
      for (const auto& a : knobs[k].alts) jk["alternatives"].push_back({{"name", a.name}, {"source", a.source}});
      for (const Profile& c : cols) jk["values"][c.name] = knobs[k].alts[c.v[k]].name;
      j["knobs"].push_back(jk);
    }
    j["revisions"] = nlohmann::ordered_json::array();
    for (const auto& r : revision_descs())
      j["revisions"].push_back({{"profile", profs[static_cast<int>(r.profile)].name},
                                {"release", r.release},
                                {"knob", knobs[static_cast<int>(r.knob)].name},
                                {"value", knobs[static_cast<int>(r.knob)].alts[r.alt].name},
                                {"source", r.source}});
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  const size_t releases = cols.size() - profs.size();
  size_t kw = 4;
  for (const auto& k : knobs) kw = std::max(kw, k.name.size());
  std::string header = fmt::format("{:<{}}", "knob", kw);
  for (const Profile& c : cols) header += fmt::format("  {:<17}", c.name);
  out << header << "\n" << std::string(header.size(), '-') << "\n";
  for (size_t k = 0; k < knobs.size(); ++k) {
    std::string row = fmt::format("{:<{}}", knobs[k].name, kw);
    for (const Profile& c : cols) row += fmt::format("  {:<17}", knobs[k].alts[c.v[k]].name);
    out << row << "\n";
  }
  out << fmt::format("\n{} profiles, {} knobs; {} later {} of a driver.\n\nProfiles:\n", profs.size(),
                     knobs.size(), releases, releases == 1 ? "release" : "releases");
  for (const auto& p : profs) out << fmt::format("  {:<6} {}\n", p.name, p.summary);
  // A driver's later releases: what changed, as `profile@release` has it.
  if (!revision_descs().empty()) {
    out << "\nLater releases of the drivers (PROFILE@RELEASE names one):\n";
    for (const auto& r : revision_descs())
      out << fmt::format("  {}  {}: {}\n", release_name(r.profile, r.release), revision_change(r), r.source);
  }
  out << "\nKnobs and the source of each alternative:\n";
  for (const auto& k : knobs) {
    out << fmt::format("\n  {}: {}\n", k.name, k.question);
    for (const auto& a : k.alts) out << fmt::format("    {:<18} {}\n", a.name, a.source);
  }
  return kExitOk;
}

}  // namespace mwc::cli
