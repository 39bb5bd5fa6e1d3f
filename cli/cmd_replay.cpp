#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "refmodel/profile.hpp"
#include "replay/replay.hpp"

namespace mwc::cli {

int cmd_replay(const ReplayOptions& o, std::ostream& out, std::ostream& err) {
  std::string why;
  const auto p = parse_profile(o.profile, why);
  if (!p) {
    err << "mwcheck replay: error: " << why << "\n";
    return kExitBadInput;
  }
  // A profile adjusted by knobs is no column of the expectations.
  const bool plain = o.profile.find('+') == std::string::npos;
  const int column = plain ? static_cast<int>(*profile_from_name(o.profile)) : -1;
  const std::string name = "profile:" + p->name;
  int status = kExitOk;
  for (const auto& path : o.files) {
    const replay::ReplayRun r = replay::replay_file(path, *p, column, o.threads);
    if (!r.error.empty()) {
      err << r.error << "\n";
      status = kExitBadInput;
      continue;
    }
    const auto& v = r.verdicts;
    for (const auto& m : v.first)
      out << mismatch_line(fmt::format("{}:op {}", path, m.op + 1), name, m.text, m.observed,
                           m.expected, m.rule);
    if (v.mismatches > v.first.size())
      out << fmt::format("{}: {} more mismatches not shown\n", path, v.mismatches - v.first.size());
    out << fmt::format("{}: {} ops, {} checked, {} mismatches under {}\n", path, v.ops, v.checked,
                       v.mismatches, name);
    // Figures vary from run to run, so they go apart from the verdicts.
    if (!o.quiet)
      err << fmt::format("{}: {:.3f} s, {:.1f} Mops/s, {} shard(s)\n", path, r.seconds,
                         r.seconds > 0 ? v.ops / r.seconds / 1e6 : 0.0, r.shards);
    if (v.mismatches && status == kExitOk) status = kExitFail;
  }
  return status;
}

}  // namespace mwc::cli
