// mwcheck prove --traces K: the security invariants over every trace of up
// to K verbs in a scope, per profile (smt/trace_search.hpp).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/load.hpp"
#include "smt/trace_search.hpp"
#include "util/atomic_file.hpp"
#include "util/output_dir.hpp"

namespace mwc::cli {
namespace {

// Returns the counterexample's file name: PROFILE.INVARIANT.mwt.
std::string file_of(const Profile& p, smt::Invariant i) {
  std::string name = p.name;
  for (char& c : name)
    if (c == '+' || c == '=') c = '_';
  return fmt::format("{}.{}.mwt", name, smt::invariant_desc(i).name);
}

}  // namespace

int cmd_prove_traces(const ProveOptions& o, std::ostream& out, std::ostream& err) {
  smt::Scope scope;
  if (const std::string why = smt::parse_scope(o.scope, scope); !why.empty())
    return err << fmt::format("--scope:1:1: error: {}\n", why), kExitBadInput;
  std::vector<Profile> profiles;
  for (const auto& spec : o.profiles) {
    std::string why;
    const auto p = parse_profile(spec, why);
    if (!p) return err << fmt::format("--profile:1:1: error: {}\n", why), kExitBadInput;
    profiles.push_back(*p);
  }
  if (profiles.empty())
    for (int i = 0; i < kProfileCount; ++i) profiles.push_back(profile(static_cast<ProfileId>(i)));
  if (std::string why; !o.witness_dir.empty() && !make_output_dir(o.witness_dir, why))
    return err << fmt::format("{}:1:1: error: cannot write the counterexamples: {}\n", o.witness_dir, why),
           kExitBadInput;

  const bool bar = !o.json && isatty(STDERR_FILENO);
  nlohmann::json j;
  j["k"] = o.traces;
  j["scope"] = smt::scope_text(scope);
  j["values"] = smt::value_choices();
  std::vector<OutputFile> files;
  size_t normative_failures = 0;
  if (!o.json)
    out << fmt::format("traces of up to {} verbs after `buf b0 len={}`, scope {}\n{}\n\n", o.traces,
                       scope.buf, smt::scope_text(scope), smt::value_choices());
  for (const Profile& p : profiles) {
    const auto id = profile_from_name(p.name);
    const bool normative = id && profile_descs()[static_cast<int>(*id)].kind == ProfileKind::normative;
    const auto res = smt::search_traces(
        p, ProfileId::ibta, o.traces, scope, [&](int depth, const smt::SearchStats& s) {
          if (bar)
            std::cerr << fmt::format("\r{}: {} of {} verbs, {} states, {} solver calls, {:.1f} s   ",
                                     p.name, depth, o.traces, s.states, s.solver_calls, s.seconds)
                      << (depth == o.traces ? "\n" : "") << std::flush;
        });
    const auto& s = res.stats;
    nlohmann::json pj{{"profile", p.name},
                      {"transitions", s.transitions},
                      {"states", s.states},
                      {"probes", s.probes},
                      {"solver_calls", s.solver_calls},
                      {"seconds", s.seconds}};
    if (!o.json)
      out << fmt::format("{}: {} ops run, {} states, {} accesses asked, {} solver calls, {:.1f} s\n",
                         p.name, s.transitions, s.states, s.probes, s.solver_calls, s.seconds);
    for (int i = 0; i < smt::kInvariantCount; ++i) {
      const auto inv = static_cast<smt::Invariant>(i);
      const auto& d = smt::invariant_desc(inv);
      const auto& c = res.cex[static_cast<size_t>(i)];
      nlohmann::json ij{{"invariant", d.name}, {"source", d.source}, {"holds", !c}};
      if (c) {
        const std::string file = file_of(p, inv);
        const size_t verbs = c->verbs;
        ij["counterexample"] = {{"verbs", verbs}, {"what", c->what}, {"file", file}};
        if (!o.witness_dir.empty()) {
          const std::string path = (std::filesystem::path(o.witness_dir) / file).string();
          files.push_back({path, trace_bytes(c->trace, path)});
        }
        normative_failures += normative;
        if (!o.json)
          out << fmt::format("  {:<16} COUNTEREXAMPLE of {} verbs: {}{}\n", d.name, verbs, c->what,
                             o.witness_dir.empty() ? "" : " -> " + file);
      } else if (!o.json) {
        out << fmt::format("  {:<16} holds for all traces of up to {} verbs in scope\n", d.name, o.traces);
      }
      pj["invariants"].push_back(ij);
    }
    j["profiles"].push_back(pj);
  }
  if (!files.empty())
    if (std::string why; !write_files(files, why))
      return err << fmt::format("{}:1:1: error: cannot write the counterexamples: {}\n", o.witness_dir, why),
             kExitBadInput;
  if (o.json) out << j.dump(2) << "\n";
  else
    out << fmt::format("\nholds: within the scope and up to {} verbs, with the values above; a "
                       "normative profile with a counterexample is a bug of the model{}\n",
                       o.traces, normative_failures ? " (see above)" : "");
  return normative_failures ? kExitFail : kExitOk;
}

}  // namespace mwc::cli
