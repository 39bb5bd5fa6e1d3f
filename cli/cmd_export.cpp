// mwcheck export: a trace's reproducer as standalone programs (C against
// libibverbs, a pyverbs unittest) beside the trace itself, the expected
// outcome of every op taken from the model under a profile.
#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/export_run.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "exports/export.hpp"
#include "refmodel/model.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {

int cmd_export(const ExportOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.run_here.empty()) return run_exports_here(o.run_here, out);  // inside the guest
  if (o.file.empty()) return err << "mwcheck export: error: give a trace\n", kExitBadInput;
  if (o.dir.empty()) return err << "mwcheck export: error: give -o DIR\n", kExitBadInput;
  if (!o.device.empty() && !is_softroce("device:" + o.device))
    return err << "mwcheck export: error: --device runs the exports in the Soft-RoCE VM: softroce[:VERSION]\n",
           kExitBadInput;
  std::string why;
  const auto p = parse_profile(o.profile, why);
  if (!p) return err << "mwcheck export: error: " << why << "\n", kExitBadInput;
  auto t = load_trace(o.file, err);
  if (!t) return kExitBadInput;
  if (t->ops.empty()) return err << fmt::format("{}:1:1: error: the trace has no op to export\n", o.file), kExitBadInput;
  // --op counts from 1, as reports number ops.
  const size_t op = o.op < 1 ? t->ops.size() - 1 : static_cast<size_t>(o.op - 1);
  if (op >= t->ops.size())
    return err << fmt::format("mwcheck export: error: --op {} is beyond the trace's {} ops\n", o.op, t->ops.size()),
           kExitBadInput;

  exports::Reproducer r;
  Model m(*p);
  m.reset(t->caps);
  for (size_t i = 0; i <= op; ++i) r.expected.push_back(m.step(t->ops[i]));
  r.seen = r.expected[op];  // no device ran: what it did is for the program to see
  if (!o.seen.empty()) {
    size_t at = 0;
    const auto pat = parse_pattern(o.seen, why, at);
    if (!pat || !pat->ret)
      return err << fmt::format("--seen:1:{}: error: {}\n", at + 1, pat ? "no result" : why), kExitBadInput;
    r.seen = Outcome{*pat->ret, pat->wc.value_or(WcStatus::kNONE), pat->wc_op.value_or(WcOpcode::kNONE),
                     pat->key.value_or(kNoKey)};
  }
  t->ops.resize(op + 1);
  if (t->lines.size() > op + 1) t->lines.resize(op + 1);
  r.trace = *t;
  const RuleDesc& rule = rule_desc(r.expected[op].rule);
  r.rule = std::string(rule.id);
  r.source = std::string(rule.source);
  r.id = o.id;
  r.op = op;
  r.summary = fmt::format("{} op {} ({}): the specification ({}) says {}", where(o.file, *t, op), op,
                          op_to_text(t->ops[op]), p->name, to_text(r.expected[op]));
  const auto paths = exports::write_exports(r, o.dir, &why);
  if (paths.empty()) return err << "mwcheck export: error: " << why << "\n", kExitBadInput;
  for (const auto& path : paths) out << path << "\n";
  if (o.device.empty()) return kExitOk;
  return run_exports_in_softroce(o.device, o.dev, o.dir, !o.no_python, out, err);
}

}  // namespace mwc::cli
