// mwcheck export: a trace's or a finding's reproducer as standalone
// programs (C against libibverbs, a pyverbs unittest) beside the trace
// itself, the expected outcome of every op taken from the model under a
// profile (for a finding: the yardstick its run judged it by).
#include <filesystem>
#include <tuple>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/device_report.hpp"
#include "cli/export_run.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "exports/export.hpp"
#include "findings/baseline.hpp"
#include "compare/run.hpp"
#include "refmodel/text_codec.hpp"
#include "util/output_dir.hpp"
#include "util/quote.hpp"
#include "util/stdio_path.hpp"

namespace mwc::cli {
namespace {

namespace fs = std::filesystem;

// What to export, before the model has given the expected outcomes.
struct Target {
  Trace trace;
  Profile profile;
  size_t op = 0;
  std::string seen;  // the device's outcome at op, when known
  std::string id;
  std::string summary;  // a finding's; a trace's lacks what the specification says
  std::string rule, source;  // a finding's, as its report names them
};

// Returns the path of the report.json `from` names (it, or the one in its
// folder; `-`, standard input, whatever folder is called so).
std::string report_path(const std::string& from) {
  return from != kStdioPath && fs::is_directory(from) ? (fs::path(from) / "report.json").string() : from;
}

// Returns what to export of finding f of the report at `path`, or nothing
// with the error printed ("FILE:LINE:COL: error: ...").
std::optional<Target> stored_target(const findings::Stored& f, const std::string& path, std::ostream& err) {
  if (f.severity == "unsupported" || f.reproducer.empty()) {
    err << fmt::format("{}:1:1: error: {} is an unsupported feature, not a finding to reproduce\n", path, f.id);
    return std::nullopt;
  }
  auto t = parse_text(f.reproducer);
  if (const auto* e = std::get_if<ParseError>(&t)) {
    err << fmt::format("{}:1:1: error: finding {}'s reproducer does not parse: line {}, column {}: {}\n", path,
                       f.id, e->line, e->col, e->message);
    return std::nullopt;
  }
  std::string why;
  const auto p = parse_profile(f.yardstick, why);
  if (!p) return err << fmt::format("{}:1:1: error: finding {}'s yardstick: {}\n", path, f.id, why), std::nullopt;
  Target x{std::get<Trace>(std::move(t)), *p, 0, f.device_outcome, f.id, f.summary, f.rule, f.source};
  if (x.trace.ops.empty()) return err << fmt::format("{}:1:1: error: finding {} has no ops\n", path, f.id), std::nullopt;
  x.op = x.trace.ops.size() - 1;  // a finding's reproducer ends at the op where it shows
  return x;
}

// Returns the finding `o.file` of the report `o.from`, or nothing with the
// error printed.
std::optional<Target> finding_target(const ExportOptions& o, std::ostream& err) {
  const std::string path = report_path(o.from);
  std::string why;
  const auto stored = findings::read_stored(path, why);
  if (!stored) return err << why << "\n", std::nullopt;
  const auto f = std::find_if(stored->begin(), stored->end(), [&](const auto& s) { return s.id == o.file; });
  if (f == stored->end()) {
    std::string ids;
    for (const auto& s : *stored) ids += (ids.empty() ? "" : ", ") + s.id;
    err << fmt::format("{}:1:1: error: no finding {} in this report (it has: {})\n", path, quote(o.file),
                       ids.empty() ? "none" : ids);
    return std::nullopt;
  }
  return stored_target(*f, path, err);
}

// Returns the trace `o.file` cut at `--op`, or nothing with the error printed.
std::optional<Target> trace_target(const ExportOptions& o, std::ostream& err) {
  std::string why;
  const auto p = parse_profile(o.profile, why);
  if (!p) return err << "mwcheck export: error: " << why << "\n", std::nullopt;
  auto t = load_trace(o.file, err);
  if (!t) return std::nullopt;
  if (t->ops.empty())
    return err << fmt::format("{}:1:1: error: the trace has no op to export\n", o.file), std::nullopt;
  // --op counts from 1, as reports number ops.
  const size_t op = o.op < 1 ? t->ops.size() - 1 : static_cast<size_t>(o.op - 1);
  if (op >= t->ops.size())
    return err << fmt::format("mwcheck export: error: --op {} is beyond the trace's {} ops\n", o.op, t->ops.size()),
           std::nullopt;
  // The summary ends with what the specification says, once the model has run.
  const std::string summary = fmt::format("{} op {} ({}): the specification ({}) says", where(o.file, *t, op), op,
                                          op_to_text(t->ops[op]), p->name);
  return Target{std::move(*t), *p, op, o.seen, o.id, summary};
}

// Writes x's exports into `dir` and prints their paths. Returns whether
// it could (else the error is printed).
bool write_target(Target& x, const ExportOptions& o, const std::string& dir, std::ostream& out,
                  std::ostream& err) {
  x.trace.ops.resize(x.op + 1);
  if (x.trace.lines.size() > x.op + 1) x.trace.lines.resize(x.op + 1);
  exports::Reproducer r;
  r.expected = run_model(x.trace, x.profile);
  r.seen = r.expected[x.op];  // no device ran: what it did is for the program to see
  if (!x.seen.empty()) {
    std::string why;
    size_t at = 0;
    const auto pat = parse_pattern(x.seen, why, at);
    if (!pat || !pat->ret) {
      // A finding's device outcome comes from its report, else from --seen.
      const std::string where = o.from.empty() ? "--seen" : report_path(o.from) + " (" + x.id + "'s device_outcome)";
      err << fmt::format("{}:1:{}: error: {}\n", where, at + 1, pat ? "no result" : why);
      return false;
    }
    r.seen = Outcome{*pat->ret, pat->wc.value_or(WcStatus::kNONE), pat->wc_op.value_or(WcOpcode::kNONE),
                     pat->key.value_or(kNoKey)};
  }
  r.trace = std::move(x.trace);
  const RuleDesc& rule = rule_desc(r.expected[x.op].rule);
  r.rule = x.rule.empty() ? std::string(rule.id) : x.rule;  // a finding's, as its report names it
  r.source = x.rule.empty() ? std::string(rule.source) : x.source;
  r.id = x.id;
  r.op = x.op;
  r.summary = o.from.empty() ? x.summary + " " + to_text(r.expected[x.op]) : x.summary;
  std::string why;
  const auto paths = exports::write_exports(r, dir, &why);
  if (paths.empty()) return err << fmt::format("{}:1:1: error: {}\n", dir, why), false;
  for (const auto& path : paths) out << path << "\n";
  return true;
}

// Exports every finding of the report o.from (unsupported features are no
// findings) into o.dir/ID, as conform --export does, and with --device runs
// them all in one boot of the VM. Returns the exit status.
int export_every_finding(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  const std::string path = report_path(o.from);
  std::string why;
  const auto stored = findings::read_stored(path, why);
  if (!stored) return err << why << "\n", kExitBadInput;
  if (!make_output_dir(o.dir, why))
    return err << fmt::format("{}:1:1: error: cannot write the exports: {}\n", o.dir, why), kExitBadInput;
  std::vector<std::string> dirs, ids;
  for (const findings::Stored& f : *stored) {
    ids.push_back(f.id);
    if (f.severity == "unsupported") continue;
    auto x = stored_target(f, path, err);
    const std::string dir = (fs::path(o.dir) / f.id).string();
    if (!x || !write_target(*x, o, dir, out, err)) return kExitBadInput;
    dirs.push_back(dir);
  }
  remove_stale_exports(o.dir, ids, err);
  if (dirs.empty()) out << fmt::format("{}: no finding to export\n", path);
  if (o.device.empty() || dirs.empty()) return kExitOk;
  return run_exports_in_softroce(o.device, o.dev, dirs, !o.no_python, out, err);
}

}  // namespace

int cmd_export(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.run_here.empty()) return run_exports_here(o.run_here, out);  // inside the guest
  if (o.file.empty() && o.from.empty())
    return err << "mwcheck export: error: give a trace, or --from a report (and a finding's id)\n", kExitBadInput;
  if (o.dir.empty()) return err << "mwcheck export: error: give -o DIR\n", kExitBadInput;
  if (!o.device.empty() && !is_softroce("device:" + o.device))
    return err << "mwcheck export: error: --device runs the exports in the Soft-RoCE VM: softroce[:VERSION]\n",
           kExitBadInput;
  // A finding takes from its report what a trace takes from these options:
  // given with --from, they would be left unread.
  const ExportOptions defaults;
  for (const auto& [given, option, why] :
       {std::tuple{o.op > 0, "--op", "a finding's reproducer ends at its op"},
        {o.seen != defaults.seen, "--seen", "a finding's device outcome is its report's"},
        {o.profile != defaults.profile, "--profile", "a finding is judged by its report's yardstick"},
        {o.id != defaults.id, "--id", "a finding keeps its report's id"}})
    if (!o.from.empty() && given)
      return err << fmt::format("mwcheck export: error: {} is for a trace: {}\n", option, why), kExitBadInput;
  if (o.file.empty()) return export_every_finding(o, out, err);
  auto x = o.from.empty() ? trace_target(o, err) : finding_target(o, err);
  if (!x || !write_target(*x, o, o.dir, out, err)) return kExitBadInput;
  if (o.device.empty()) return kExitOk;
  return run_exports_in_softroce(o.device, o.dev, {o.dir}, !o.no_python, out, err);
}

}  // namespace mwc::cli
