#include <fmt/format.h>

#include "adapters/backend.hpp"
#include "compare/annotate.hpp"
#include "cli/app.hpp"
#include "cli/guest.hpp"
#include "cli/commands.hpp"
#include "cli/json_out.hpp"
#include "cli/load.hpp"
#include "cli/report.hpp"
#include "cli/run_stream.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {

int cmd_run(const RunOptions& o, std::ostream& out, std::ostream& err) {
  if (!stdin_at_most_once(o.files, err)) return kExitBadInput;
  const std::string spec =
      o.device.empty() ? o.profile : (o.device.starts_with("device:") ? "" : "device:") + o.device;
  if (softroce_spec({spec}) == 0) {
    std::vector<std::string> args = {"run", "--device", "rxe0"};
    if (o.check) args.push_back("--check");
    if (o.quiet) args.push_back("--quiet");
    if (o.json) args.push_back("--json");
    for (auto& a : device_args(o.dev)) args.push_back(a);
    return run_args_in_softroce(spec, o.dev, args, o.files, out, err, true, "",
                                {.traces = true});
  }
  std::string why;
  auto backend = make_backend(spec, why, o.dev);
  if (!backend) {
    err << "mwcheck run: error: " << why << "\n";
    return kExitBadInput;
  }
  int status = kExitOk;
  size_t mismatches = 0;
  std::vector<Outcome> outcomes;
  nlohmann::ordered_json doc{{"backend", backend->name()}, {"files", nlohmann::ordered_json::array()}};
  for (const auto& path : o.files) {
    // The model: any length, in bounded memory (--json holds every op's
    // outcome in one document, so it loads the trace whole).
    if (!o.json && can_stream(path, *backend)) {
      if (!o.quiet && o.files.size() > 1) out << "# == " << path << " ==\n";
      if (!run_streamed(path, *backend, o.check, o.quiet, mismatches, out, err)) status = kExitBadInput;
      continue;
    }
    // Standard input or a pipe: one pass (a binary trace comes back whole).
    std::optional<Trace> t;
    bool headed = false;  // the file's header line is printed
    if (!o.json && backend->runs_pieces() && reads_once(path)) {
      headed = !o.quiet && o.files.size() > 1;
      if (headed) out << "# == " << path << " ==\n";
      if (!run_read_once(path, *backend, o.check, o.quiet, mismatches, t, out, err)) status = kExitBadInput;
      if (!t) continue;
    } else {
      t = load_trace(path, err);
    }
    if (!t) {
      status = kExitBadInput;
      continue;
    }
    mark_trace(static_cast<size_t>(&path - o.files.data()), err);
    backend->run(*t, outcomes);
    const auto bad = check_expectations(path, *t, outcomes, backend->expectation_column());
    mismatches += bad.size();
    if (o.json) {
      nlohmann::ordered_json f{{"file", path}, {"note", backend->note()}, {"ops", nlohmann::ordered_json::array()}};
      if (!o.quiet)
        for (size_t i = 0; i < t->ops.size() && i < outcomes.size(); ++i) {
          nlohmann::ordered_json op{{"op", i + 1}, {"text", op_to_text(t->ops[i])}};
          op.update(outcome_json(outcomes[i]));
          f["ops"].push_back(op);
        }
      f["mismatches"] = nlohmann::ordered_json::array();
      for (const auto& m : bad) f["mismatches"].push_back(mismatch_json(m));
      doc["files"].push_back(f);
    } else {
      if (!backend->note().empty()) out << "# " << path << ": " << backend->note() << "\n";
      if (!o.quiet) {
        if (o.files.size() > 1 && !headed) out << "# == " << path << " ==\n";
        out << annotate(*t, outcomes, backend->expectation_column(), backend->name());
      }
    }
    if (o.check)
      for (const auto& m : bad) err << mismatch_line(m, backend->name());
  }
  if (o.json) {
    doc["mismatches"] = mismatches;
    print_json(out, doc);
  }
  if (status == kExitOk && o.check && mismatches) status = kExitFail;
  return status;
}

}  // namespace mwc::cli
