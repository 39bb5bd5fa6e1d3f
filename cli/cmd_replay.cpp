#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/json_out.hpp"
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
  // A profile adjusted by knobs, or a driver's later release, is no column
  // of the expectations.
  const auto plain = profile_from_name(o.profile);
  const int column = plain ? static_cast<int>(*plain) : -1;
  const std::string name = "profile:" + p->name;
  int status = kExitOk;
  const auto t0 = std::chrono::steady_clock::now();
  const auto runs = replay::replay_files(o.files, *p, column, o.threads);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t ops = 0;
  nlohmann::ordered_json doc{{"profile", name}, {"threads", o.threads}, {"files", nlohmann::ordered_json::array()}};
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string& path = o.files[i];
    const replay::ReplayRun& r = runs[i];
    if (!r.error.empty()) {
      err << r.error << "\n";
      status = kExitBadInput;
      continue;
    }
    const auto& v = r.verdicts;
    ops += v.ops;
    if (v.mismatches && status == kExitOk) status = kExitFail;
    if (o.json) {
      nlohmann::ordered_json f{{"file", path}, {"ops", v.ops}, {"checked", v.checked}, {"mismatches", v.mismatches},
                               {"first", nlohmann::ordered_json::array()}};
      for (Mismatch m : v.first) {
        m.where = fmt::format("{}:op {}", path, m.op + 1);
        f["first"].push_back(mismatch_json(m));
      }
      // Figures vary from run to run: none with --quiet.
      if (!o.quiet) {
        const double s = r.seconds;
        f["seconds"] = s;
        f["mops_per_second"] = s > 0 ? v.ops / s / 1e6 : 0.0;
        f["bytes_per_op"] = v.ops ? static_cast<double>(r.bytes) / static_cast<double>(v.ops) : 0.0;
        f["read_ahead"] = r.read_ahead;
      }
      doc["files"].push_back(f);
      continue;
    }
    for (Mismatch m : v.first) {
      m.where = fmt::format("{}:op {}", path, m.op + 1);  // a binary trace has no lines
      out << mismatch_line(m, name);
    }
    if (v.mismatches > v.first.size())
      out << fmt::format("{}: {} more mismatches not shown\n", path, v.mismatches - v.first.size());
    out << fmt::format("{}: {} ops, {} checked, {} mismatches under {}\n", path, v.ops, v.checked,
                       v.mismatches, name);
    // Figures vary from run to run, so they go apart from the verdicts.
    if (!o.quiet) {
      err << fmt::format("{}: {:.3f} s, {:.1f} Mops/s, {:.1f} bytes/op{}\n", path, r.seconds,
                         r.seconds > 0 ? v.ops / r.seconds / 1e6 : 0.0,
                         v.ops ? static_cast<double>(r.bytes) / static_cast<double>(v.ops) : 0.0,
                         r.read_ahead ? ", a thread reading ahead" : "");
      if (!r.note.empty()) err << fmt::format("{}: note: {}\n", path, r.note);
    }
  }
  if (o.json) {
    print_json(out, doc);
    return status;
  }
  if (!o.quiet && runs.size() > 1)
    err << fmt::format("{} files: {} ops in {:.3f} s, {:.1f} Mops/s on {} thread(s)\n", runs.size(),
                       ops, seconds, seconds > 0 ? ops / seconds / 1e6 : 0.0,
                       std::min<size_t>(runs.size(), static_cast<size_t>(o.threads)) *
                           static_cast<size_t>(replay::threads_per_file(runs.size(), o.threads)));
  return status;
}

}  // namespace mwc::cli
