#include <chrono>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/load.hpp"
#include "smt/domain.hpp"
#include "smt/theorems.hpp"
#include "smt/witness.hpp"
#include "util/atomic_file.hpp"
#include "util/output_dir.hpp"

namespace mwc::cli {
namespace {
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

std::string rule_ids(const smt::Theorem& t) {
  std::string s;
  for (Rule r : t.rules) s += (s.empty() ? "" : ",") + std::string(rule_desc(r).id);
  return s;
}

struct Confirmed {
  const smt::Witness* w;
  std::optional<size_t> at;  // first divergence between the two profiles
  bool knob_alone;
  bool ok() const { return at && knob_alone; }
};

}  // namespace

int cmd_prove(const ProveOptions& o, std::ostream& out, std::ostream& err) {
  if (o.traces > 0) return cmd_prove_traces(o, out, err);
  if (std::string why; !o.witness_dir.empty() && !make_output_dir(o.witness_dir, why))  // before minutes of work
    return err << fmt::format("{}:1:1: error: cannot write the witnesses: {}\n", o.witness_dir, why), kExitBadInput;
  const auto start = Clock::now();
  const auto theorems = smt::theorems<smt::Sym>();
  std::vector<smt::Verdict> verdicts;
  for (const auto& t : theorems) verdicts.push_back(smt::prove(t));
  const auto wstart = Clock::now();
  const auto witnesses = smt::distinguishing_witnesses();
  std::vector<Confirmed> confirmed;
  for (const auto& w : witnesses)
    confirmed.push_back({&w, smt::first_divergence(w.trace, profile(w.a), profile(w.b)),
                         smt::knob_alone_diverges(w.trace, w.a, w.b, w.knob)});
  const double witness_ms = ms_since(wstart);
  const auto cex = smt::counterexample_traces();

  int status = kExitOk;
  if (!o.witness_dir.empty()) {  // one set: every witness written, or none replaced
    std::vector<OutputFile> files;
    const auto add = [&](const Trace& t, const std::string& file) {
      const std::string path = (std::filesystem::path(o.witness_dir) / file).string();
      files.push_back({path, trace_bytes(t, path)});
    };
    for (const auto& w : witnesses) add(w.trace, w.file);
    for (const auto& c : cex) add(c.trace, c.file);
    if (std::string why; !write_files(files, why)) {
      err << fmt::format("{}:1:1: error: cannot write the witnesses: {}\n", o.witness_dir, why);
      status = kExitBadInput;
    }
  }
  const auto trace_of = [&](const std::string& theorem) {
    for (const auto& c : cex)
      if (c.theorem == theorem) return c.file;
    return std::string();
  };
  size_t failed = 0, bad_witnesses = 0;
  for (const auto& v : verdicts) failed += !v.as_expected();
  for (const auto& c : confirmed) bad_witnesses += !c.ok();
  const double total_ms = ms_since(start);

  if (o.json) {
    nlohmann::json j;
    j["theorems"] = nlohmann::json::array();
    for (const auto& v : verdicts) {
      const auto& t = *v.theorem;
      nlohmann::json rules = nlohmann::json::array();
      for (Rule r : t.rules) rules.push_back(rule_desc(r).id);
      j["theorems"].push_back({{"name", t.name}, {"rules", rules}, {"statement", t.statement},
                               {"result", smt::status_name(v.status)},
                               {"as_expected", v.as_expected()}, {"known", t.known},
                               {"values", v.values}, {"trace", trace_of(t.name)}, {"ms", v.ms}});
    }
    j["witnesses"] = nlohmann::json::array();
    for (const auto& c : confirmed)
      j["witnesses"].push_back({{"file", c.w->file},
                                {"a", profile_descs()[static_cast<int>(c.w->a)].name},
                                {"b", profile_descs()[static_cast<int>(c.w->b)].name},
                                {"knob", knob_descs()[static_cast<int>(c.w->knob)].name},
                                {"diverges_at_op", c.at ? nlohmann::json(*c.at + 1) : nlohmann::json()},
                                {"knob_alone_diverges", c.knob_alone}});
    j["witness_ms"] = witness_ms;
    j["total_ms"] = total_ms;
    out << j.dump(2) << "\n";
  } else {
    out << fmt::format("{:<42} {:<44} {:<15} {:>9}\n", "theorem", "rules", "result", "time");
    for (const auto& v : verdicts) {
      const auto& t = *v.theorem;
      std::string result = smt::status_name(v.status);
      if (!t.known.empty() && v.status == smt::Status::Counterexample) result += " (known)";
      out << fmt::format("{:<42} {:<44} {:<15} {:>6.1f} ms\n", t.name, rule_ids(t), result, v.ms);
      if (v.status == smt::Status::Counterexample || (t.exists && !v.values.empty() && !v.as_expected()))
        out << fmt::format("    {}: {}\n", v.as_expected() ? "counterexample" : "COUNTEREXAMPLE",
                           v.values);
      if (!t.known.empty()) {
        out << fmt::format("    known: {}\n", t.known);
        if (const auto f = trace_of(t.name); !f.empty())
          out << fmt::format("    trace: {}{}\n", o.witness_dir.empty() ? "" : o.witness_dir + "/", f);
      }
    }
    for (const auto& c : confirmed)
      if (!c.ok())
        out << fmt::format("witness {}: {}\n", c.w->file,
                           c.at ? "the knob alone does not diverge" : "the profiles do not diverge");
    out << fmt::format("witnesses: {} distinguishing traces (every pair of profiles x knob they "
                       "differ on), {} confirmed, {:.1f} ms\n",
                       confirmed.size(), confirmed.size() - bad_witnesses, witness_ms);
    out << fmt::format("prove: {} theorems, {} as expected ({} known counterexamples), {:.1f} ms total\n",
                       verdicts.size(), verdicts.size() - failed, cex.size(), total_ms);
  }
  if (status == kExitOk && (failed || bad_witnesses)) status = kExitFail;
  return status;
}

}  // namespace mwc::cli
