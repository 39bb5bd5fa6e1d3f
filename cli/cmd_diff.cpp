#include <fmt/format.h>

#include "adapters/backend.hpp"
#include "cli/app.hpp"
#include "compare/divergence.hpp"
#include "cli/guest.hpp"
#include "cli/commands.hpp"
#include "cli/json_out.hpp"
#include "cli/load.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace {

// Returns the names of the knobs in `bits`.
std::vector<std::string> knob_names(uint32_t bits) {
  std::vector<std::string> v;
  for (int k = 0; k < kKnobCount; ++k)
    if ((bits >> k) & 1) v.emplace_back(knob_descs()[k].name);
  return v;
}

// Returns "knob, knob" or "none".
std::string knob_list(uint32_t bits) {
  std::string s;
  for (const auto& n : knob_names(bits)) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

}  // namespace

int cmd_diff(const DiffOptions& o, std::ostream& out, std::ostream& err) {
  if (o.against.size() != 2) {
    err << "mwcheck diff: error: give two backends (--against A --against B)\n";
    return kExitBadInput;
  }
  if (!stdin_at_most_once(o.files, err)) return kExitBadInput;
  if (const int vm = softroce_spec(o.against); vm >= 0) {
    if (!guest_backends_ok(o.against, vm, o.dev, "diff", err)) return kExitBadInput;
    std::vector<std::string> args = {"diff"};
    for (const auto& a : o.against) args.insert(args.end(), {"--against", is_softroce(a) ? "device:rxe0" : a});
    if (o.json) args.push_back("--json");
    for (auto& a : device_args(o.dev)) args.push_back(a);
    return run_args_in_softroce(o.against[static_cast<size_t>(vm)], o.dev, args, o.files, out, err, true, "",
                                {.traces = true});
  }
  std::unique_ptr<Backend> b[2];
  for (int i = 0; i < 2; ++i) {
    std::string why;
    b[i] = make_backend(o.against[i], why, o.dev);
    if (!b[i]) {
      err << "mwcheck diff: error: " << why << "\n";
      return kExitBadInput;
    }
  }
  const size_t width = std::max(b[0]->name().size(), b[1]->name().size()) + 1;
  int status = kExitOk;
  size_t diverged = 0, traces = 0;
  std::vector<Outcome> oa, ob;
  nlohmann::ordered_json doc{{"a", b[0]->name()}, {"b", b[1]->name()}, {"files", nlohmann::ordered_json::array()}};
  for (const auto& path : o.files) {
    auto t = load_trace(path, err);
    if (!t) {
      status = kExitBadInput;
      continue;
    }
    ++traces;
    mark_trace(static_cast<size_t>(&path - o.files.data()), err);
    b[0]->run(*t, oa);
    b[1]->run(*t, ob);
    // Ops a dead device never ran are a difference here: the two did not do the same.
    const auto d = first_divergence(oa, ob, 0, NotRun::compared);
    const size_t i = d ? d->op : t->ops.size();
    if (o.json) {
      nlohmann::ordered_json f{{"file", path}, {"ops", t->ops.size()}, {"notes", {{"a", b[0]->note()}, {"b", b[1]->note()}}}};
      if (i < t->ops.size()) {
        ++diverged;
        f["divergence"] = {{"op", i + 1}, {"where", where(path, *t, i)}, {"text", op_to_text(t->ops[i])},
                           {"a", outcome_json(oa[i])}, {"b", outcome_json(ob[i])},
                           {"knobs", knob_names(oa[i].knobs | ob[i].knobs)}};
      } else {
        f["divergence"] = nullptr;
      }
      doc["files"].push_back(f);
      continue;
    }
    for (auto& x : b)
      if (!x->note().empty()) out << fmt::format("{}: {}: {}\n", path, x->name(), x->note());
    if (i == t->ops.size()) {
      out << fmt::format("{}: same outcomes ({} ops)\n", path, t->ops.size());
      continue;
    }
    ++diverged;
    out << fmt::format("{}: first divergence at op {}: {}\n", where(path, *t, i), i + 1,
                       op_to_text(t->ops[i]));
    for (int k = 0; k < 2; ++k) {
      const Outcome& x = k == 0 ? oa[i] : ob[i];
      const RuleDesc& rd = rule_desc(x.rule);
      out << fmt::format("  {:<{}} {:<28} rule {} ({})\n", b[k]->name() + ":", width, to_text(x),
                         rd.id, rd.source);
    }
    out << fmt::format("  knobs consulted: {}\n", knob_list(oa[i].knobs | ob[i].knobs));
  }
  if (o.json) {
    doc["traces"] = traces;
    doc["diverged"] = diverged;
    print_json(out, doc);
  } else {
    out << fmt::format("diff: {} of {} traces diverge between {} and {}\n", diverged, traces,
                       b[0]->name(), b[1]->name());
  }
  if (status == kExitOk && diverged) status = kExitFail;
  return status;
}

}  // namespace mwc::cli
