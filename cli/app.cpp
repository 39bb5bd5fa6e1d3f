#include "cli/app.hpp"

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace mwc::cli {

int run_app(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"mwcheck: a deterministic conformance harness for RDMA memory windows and regions",
               "mwcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mwcheck 0.1.0");

  RunOptions run;
  auto* r = app.add_subcommand("run", "Run traces and print each annotated with the outcomes");
  r->add_option("--profile,-p", run.profile,
                "Profile (ibta, verbs, det, rxe, mlx5), optionally +knob=alternative...")
      ->capture_default_str();
  r->add_flag("--check", run.check, "Exit 1 when an outcome differs from the trace's expectation");
  r->add_flag("--quiet,-q", run.quiet, "Print only mismatches and errors");
  r->add_option("files", run.files, "Trace files (.mwt or .mwb)")->required();

  DiffOptions diff;
  auto* d = app.add_subcommand("diff", "Show the first op where two backends disagree");
  d->add_option("--against,-a", diff.against, "A backend: profile:NAME[+knob=alt...] (give two)")
      ->required()
      ->expected(2);
  d->add_option("files", diff.files, "Trace files (.mwt or .mwb)")->required();

  ProfilesOptions profiles;
  auto* p = app.add_subcommand("profiles", "Print the knob x profile matrix with sources");
  p->add_flag("--json", profiles.json, "Print JSON");

  ConvertOptions convert;
  auto* c = app.add_subcommand("convert", "Convert a trace between .mwt (text) and .mwb (binary)");
  c->add_option("in", convert.in, "Input trace")->required();
  c->add_option("out", convert.out, "Output trace; .mwb for binary, anything else for text")
      ->required();

  ConformOptions conform;
  auto* f = app.add_subcommand("conform", "Run the conformance corpus; print the rule x profile table");
  f->add_option("--profile,-p", conform.profiles, "Profiles to run (default: all five)");
  f->add_option("--corpus", conform.corpus, "Corpus folder")->default_str(MWCHECK_DEFAULT_CORPUS);
  f->add_option("--report", conform.report, "Write report.json and junit.xml into this folder");

  FuzzOptions fuzz;
  auto* z = app.add_subcommand("fuzz", "Differential fuzzing of two backends, in process");
  z->add_option("--against,-a", fuzz.against, "A backend: profile:NAME[+knob=alt...] or mutant:NAME (give two)")
      ->required()
      ->expected(2);
  z->add_option("--seed", fuzz.seed, "Random seed")->capture_default_str();
  auto* zt = z->add_option("--time", fuzz.time, "Stop after this many seconds (default 60)");
  z->add_option("--runs", fuzz.runs, "Stop after this many inputs")->excludes(zt);
  z->add_option("--out", fuzz.out, "Write each finding here as a minimized .mwt reproducer");
  z->add_option("--corpus", fuzz.corpus, "Seed traces (none: start from nothing)")
      ->default_str(MWCHECK_DEFAULT_CORPUS);
  z->add_flag("--keep-going", fuzz.keep_going, "Go on after the first finding");
  z->add_option("--max-ops", fuzz.max_ops, "Longest trace the mutator makes")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));

  PowerOptions power;
  auto* w = app.add_subcommand("power", "Measure how fast fuzzing finds each mutant model");
  w->add_option("--seeds", power.seeds, "Campaigns per mutant (seeds 1..N)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  w->add_option("--budget", power.budget, "Seconds a campaign may take")->capture_default_str();
  w->add_option("--corpus", power.corpus, "Conformance corpus")->default_str(MWCHECK_DEFAULT_CORPUS);

  std::vector<const char*> argv{"mwcheck"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, out, err);
    return kExitBadInput;
  }
  if (conform.corpus.empty()) conform.corpus = MWCHECK_DEFAULT_CORPUS;
  if (fuzz.corpus.empty()) fuzz.corpus = MWCHECK_DEFAULT_CORPUS;
  if (power.corpus.empty()) power.corpus = MWCHECK_DEFAULT_CORPUS;
  if (*z) return cmd_fuzz(fuzz, out, err);
  if (*w) return cmd_power(power, out, err);
  if (*r) return cmd_run(run, out, err);
  if (*d) return cmd_diff(diff, out, err);
  if (*p) return cmd_profiles(profiles, out, err);
  if (*c) return cmd_convert(convert, out, err);
  return cmd_conform(conform, out, err);
}

}  // namespace mwc::cli
