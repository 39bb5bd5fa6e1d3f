// mwcheck export: a trace's or a finding's reproducer as standalone
// programs (C against libibverbs, a pyverbs unittest) beside the trace
// itself, the expected outcome of every op taken from the model under a
// profile (for a finding: the yardstick its run judged it by).
#include <filesystem>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/export_run.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "exports/export.hpp"
#include "findings/baseline.hpp"
#include "compare/run.hpp"
#include "refmodel/text_codec.hpp"
#include "util/quote.hpp"

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

// Returns the finding `o.file` of the report `o.from`, or nothing with the
// error printed ("FILE:LINE:COL: error: ...").
std::optional<Target> finding_target(const ExportOptions& o, std::ostream& err) {
  std::string path = o.from;
  if (fs::is_directory(path)) path = (fs::path(path) / "report.json").string();
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
  if (f->severity == "unsupported" || f->reproducer.empty()) {
    err << fmt::format("{}:1:1: error: {} is an unsupported feature, not a finding to reproduce\n", path, f->id);
    return std::nullopt;
  }
  auto t = parse_text(f->reproducer);
  if (const auto* e = std::get_if<ParseError>(&t)) {
    err << fmt::format("{}:1:1: error: finding {}'s reproducer does not parse: line {}, column {}: {}\n", path,
                       f->id, e->line, e->col, e->message);
    return std::nullopt;
  }
  const auto p = parse_profile(f->yardstick, why);
  if (!p) return err << fmt::format("{}:1:1: error: finding {}'s yardstick: {}\n", path, f->id, why), std::nullopt;
  Target x{std::get<Trace>(std::move(t)), *p, 0, f->device_outcome, f->id, f->summary, f->rule, f->source};
  if (x.trace.ops.empty()) return err << fmt::format("{}:1:1: error: finding {} has no ops\n", path, f->id), std::nullopt;
  x.op = x.trace.ops.size() - 1;  // a finding's reproducer ends at the op where it shows
  return x;
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

}  // namespace

int cmd_export(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.run_here.empty()) return run_exports_here(o.run_here, out);  // inside the guest
  if (o.file.empty()) return err << "mwcheck export: error: give a trace, or a finding's id and --from\n", kExitBadInput;
  if (o.dir.empty()) return err << "mwcheck export: error: give -o DIR\n", kExitBadInput;
  if (!o.device.empty() && !is_softroce("device:" + o.device))
    return err << "mwcheck export: error: --device runs the exports in the Soft-RoCE VM: softroce[:VERSION]\n",
           kExitBadInput;
  if (!o.from.empty() && o.op > 0)
    return err << "mwcheck export: error: --op is for a trace: a finding's reproducer ends at its op\n",
           kExitBadInput;
  auto x = o.from.empty() ? trace_target(o, err) : finding_target(o, err);
  if (!x) return kExitBadInput;

  x->trace.ops.resize(x->op + 1);
  if (x->trace.lines.size() > x->op + 1) x->trace.lines.resize(x->op + 1);
  exports::Reproducer r;
  r.expected = run_model(x->trace, x->profile);
  r.seen = r.expected[x->op];  // no device ran: what it did is for the program to see
  if (!x->seen.empty()) {
    std::string why;
    size_t at = 0;
    const auto pat = parse_pattern(x->seen, why, at);
    if (!pat || !pat->ret)
      return err << fmt::format("--seen:1:{}: error: {}\n", at + 1, pat ? "no result" : why), kExitBadInput;
    r.seen = Outcome{*pat->ret, pat->wc.value_or(WcStatus::kNONE), pat->wc_op.value_or(WcOpcode::kNONE),
                     pat->key.value_or(kNoKey)};
  }
  r.trace = std::move(x->trace);
  const RuleDesc& rule = rule_desc(r.expected[x->op].rule);
  r.rule = x->rule.empty() ? std::string(rule.id) : x->rule;  // a finding's, as its report names it
  r.source = x->rule.empty() ? std::string(rule.source) : x->source;
  r.id = x->id;
  r.op = x->op;
  r.summary = o.from.empty() ? x->summary + " " + to_text(r.expected[x->op]) : x->summary;
  std::string why;
  const auto paths = exports::write_exports(r, o.dir, &why);
  if (paths.empty()) return err << "mwcheck export: error: " << why << "\n", kExitBadInput;
  for (const auto& path : paths) out << path << "\n";
  if (o.device.empty()) return kExitOk;
  return run_exports_in_softroce(o.device, o.dev, o.dir, !o.no_python, out, err);
}

}  // namespace mwc::cli
