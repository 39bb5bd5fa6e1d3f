#include "cli/app.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/complete.hpp"
#include "cli/device_options.hpp"
#include "cli/guest.hpp"
#include "cli/json_out.hpp"
#include "cli/load.hpp"
#include "cli/manpage.hpp"
#include "cli/numbers.hpp"
#include "refmodel/field.hpp"
#include "util/install_layout.hpp"
#include "util/quote.hpp"

namespace mwc::cli {

namespace {

// Returns the conformance corpus mwcheck ships with.
std::string default_corpus() { return data_path("corpus/conformance"); }

// Returns the trace files of a corpus folder, for checks before it loads.
std::vector<std::string> corpus_names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& p : corpus_files(dir)) names.push_back(p.string());
  return names;
}

// Returns whether any spec names a device ("device:...").
bool names_device(const std::vector<std::string>& specs) {
  return std::any_of(specs.begin(), specs.end(), [](const auto& s) { return s.starts_with("device:"); });
}

// Prints a parse error as CLI11 does, with the arguments it echoes escaped.
void print_parse_error(const CLI::ParseError& e, std::ostream& err) {
  err << escaped(e.what(), 400) << "\nRun with --help for more information.\n";
}

}  // namespace

int run_app(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"mwcheck: a deterministic conformance harness for RDMA memory windows and regions",
               "mwcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "mwcheck " + std::string(tool_version()));

  RunOptions run;
  auto* r = app.add_subcommand("run", "Run traces and print each annotated with the outcomes");
  r->add_option("--profile,-p", run.profile,
                "Profile (" + profile_names() + "), optionally +knob=alternative...")
      ->capture_default_str();
  r->add_option("--device,-d", run.device,
                 "Run on a device instead: an ibverbs name (rxe0, mlx5_0) or softroce[:VERSION]");
  const DeviceOptions run_dev = add_device_options(r, run.dev);
  r->add_flag("--check", run.check, "Exit 1 when an outcome differs from the trace's expectation");
  r->add_flag("--quiet,-q", run.quiet, "Print only mismatches and errors (with --json: no ops)");
  r->add_flag("--json", run.json, "Print one JSON document: each op's outcome and rule, the mismatches");
  r->add_option("files", run.files, "Trace files (.mwt or .mwb; - for standard input)")->required();

  DiffOptions diff;
  auto* d = app.add_subcommand("diff", "Show the first op where two backends disagree");
  d->add_option("--against,-a", diff.against,
                "A backend (give two): profile:NAME[+knob=alt...], mutant:NAME, device:NAME, "
                "device:softroce[:VERSION]")
      ->required()
      ->allow_extra_args(false);  // one backend per --against; the rest are files
  const DeviceOptions diff_dev = add_device_options(d, diff.dev);
  d->add_flag("--json", diff.json, "Print one JSON document: each trace's first divergence");
  d->add_option("files", diff.files, "Trace files (.mwt or .mwb; - for standard input)")->required();

  ProfilesOptions profiles;
  auto* p = app.add_subcommand("profiles", "Print the knob x profile matrix with sources");
  p->add_flag("--json", profiles.json, "Print JSON");

  ListOptions mutants;
  auto* mu = app.add_subcommand("mutants", "List the mutant models (mutant:NAME): the bug each has, on which profile");
  mu->add_flag("--json", mutants.json, "Print JSON");

  ListOptions devices;
  auto* dv = app.add_subcommand("devices", "List this machine's ibverbs devices and the Soft-RoCE kernels one can name");
  dv->add_flag("--json", devices.json, "Print JSON");

  ConvertOptions convert;
  auto* c = app.add_subcommand("convert", "Convert a trace between .mwt (text) and .mwb (binary)");
  c->add_option("in", convert.in, "Input trace (- for standard input)")->required();
  c->add_option("out", convert.out, "Output trace; .mwb for binary, anything else for text; - for standard output")
      ->required();
  c->add_flag("--binary", convert.binary, "Write .mwb whatever the output's name");

  ConformOptions conform;
  auto* f = app.add_subcommand("conform", "Run the conformance corpus; print the rule x profile table");
  f->add_option("--profile,-p", conform.profiles, "Profiles to run (default: all five)");
  f->add_option("--corpus", conform.corpus, "Corpus folder")->default_str(default_corpus());
  f->add_option("--report", conform.report,
                "Write report.json and junit.xml (and, with --device, report.html) into this folder");
  auto* fdevice = f->add_option("--device,-d", conform.devices,
                "Run the corpus on a device (rxe0, mlx5_0, softroce, softroce:6.12, "
                "softroce:FILE.deb); several give a column each");
  f->add_option("--against,-a", conform.against,
                "With --device: judge the devices by these normative profiles (default: "
                "ibta and verbs; det when asked), each with the readings a device follows "
                "where the sources legitimately disagree")
      ->needs(fdevice);
  auto* fstream = f->add_flag("--stream", conform.stream, "With --device: print results as JSON lines")
                      ->needs(fdevice);
  auto* fshrink = f->add_flag("--shrink", conform.shrink,
                              "With --stream: shrink the finding --target names in each corpus trace")
                      ->needs(fstream);
  f->add_option("--target", conform.targets, "With --shrink: a finding's key, one per corpus trace")
      ->needs(fshrink);
  f->add_option("--known", conform.known, "With --shrink: HASH=0|1, a candidate answered before")
      ->needs(fshrink);
  f->add_option("--shrink-seconds", conform.shrink_seconds,
                "With --device: seconds all shrinking of one device's findings may take")
      ->capture_default_str()
      ->check(in_range(0.0, 86400.0))
      ->needs(fdevice);
  f->add_option("--baseline", conform.baseline,
                "With --device: a report.json of an earlier run; say which findings are new, "
                "fixed or unchanged, and exit 1 only for new ones")
      ->needs(fdevice);
  f->add_option("--attacks", conform.attacks,
                "With --device: also run these attack traces (mwcheck prove --traces); default: "
                "the attacks folder beside --corpus; none: not")
      ->needs(fdevice);
  f->add_option("--export", conform.export_dir,
                "With --device: write each finding's reproducer as .mwt, a C program and a "
                "pyverbs test into this folder")
      ->needs(fdevice);
  const DeviceOptions conform_dev = add_device_options(f, conform.dev);

#ifdef MWCHECK_HAVE_PROVE
  ProveOptions prove;
  auto* v = app.add_subcommand("prove", "Prove the rule theorems with Z3; write distinguishing traces");
  v->add_flag("--json", prove.json, "Print JSON");
  v->add_option("--witness-dir", prove.witness_dir,
                "Write the distinguishing and counterexample traces (.mwt) into this folder");
  v->add_option("--traces", prove.traces,
                "Prove the security invariants over every trace of up to this many verbs "
                "(in --scope), per profile, instead of the rule theorems")
      ->check(CLI::Range(1, 8));
  v->add_option("--scope", prove.scope, "With --traces: objects a trace may make, e.g. pd=2,mr=2,mw=2,qp=2 (each 0-4)")
      ->capture_default_str();
  v->add_option("--profile,-p", prove.profiles, "With --traces: the profiles (default: every one)");
#endif

  ReplayOptions replay;
  auto* rp = app.add_subcommand("replay", "Replay binary traces fast on the model; check every op");
  rp->add_option("--profile,-p", replay.profile, "Profile, optionally +knob=alternative...")
      ->capture_default_str();
  rp->add_option("--threads,-j", replay.threads, "Threads: files at once; each file gets a thread reading ahead when there are twice as many and its replay is behind the reading "
                 "(one file runs on one engine; split it with gen --shards N)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  rp->add_flag("--quiet,-q", replay.quiet, "Print no throughput figures");
  rp->add_flag("--json", replay.json, "Print one JSON document: each file's counts and first mismatches");
  rp->add_option("files", replay.files, "Binary traces (.mwb; - for standard input)")->required();

  GenOptions gen;
  auto* g = app.add_subcommand("gen", "Generate a large realistic trace (deterministic)");
  g->add_option("--ops,-n", gen.gen.ops, "Number of ops (0: an empty trace, which replays as one)")
      ->capture_default_str()
      ->check(in_range<uint64_t>(0, 1'000'000'000'000));
  g->add_option("--seed,-s", gen.gen.seed, "Seed")
      ->capture_default_str()
      ->check(in_range<uint64_t>(0, UINT64_MAX));
  g->add_option("--mix", gen.gen.mix, std::string("Op weights OP=W,...: each replaces that op's weight in the default "
                                                      "(OP=0 leaves an op out; ops not named keep theirs) ") +
                                          replay::kDefaultMix);
  // Object counts: at most what a trace holds of each kind (field.hpp).
  const auto count = [&](const char* name, uint32_t& v, const char* what, HandleKind k) {
    g->add_option(name, v, what)->capture_default_str()->check(in_range<uint32_t>(1, kMaxCap[static_cast<int>(k)]));
  };
  count("--pds", gen.gen.pds, "PDs (each with its buffer, MRs, windows, QPs)", HandleKind::Pd);
  count("--mrs", gen.gen.mrs_per_pd, "MRs per PD", HandleKind::Mr);
  count("--mws", gen.gen.mws_per_pd, "Windows per PD", HandleKind::Mw);
  count("--qps", gen.gen.qps_per_pd, "QPs per PD", HandleKind::Qp);
  g->add_option("--errors", gen.gen.error_permille, "Ops made to fail, per mille")
      ->capture_default_str()
      ->check(in_range<uint32_t>(0, 1000));
  g->add_option("--expect", gen.gen.expect,
                "Expected outcomes: all (every profile), none, or a profile")
      ->capture_default_str();
  g->add_flag("--binary", gen.binary, "Write .mwb whatever the file name");
  g->add_option("--shards", gen.shards,
                "Split by PD into N traces (OUT.0.mwb...) that replay in parallel")
      ->capture_default_str()
      ->check(in_range<uint32_t>(1, 64));
  g->add_option("-o,--output", gen.out, "Output: .mwb for binary, else text; - for standard output")
      ->required();
  RecordOptions rec;
  auto* rc = app.add_subcommand("record", "Record an unmodified libibverbs program's MW/MR verbs as a trace");
  rc->add_option("-o,--output", rec.out, "The trace: .mwb for binary, else text")->required();
  rc->add_option("--log", rec.log, "Keep the recorder's event log here");
  rc->add_option("--from-log", rec.from_log, "Convert a kept log instead of running a program");
  auto* rcdevice =
      rc->add_option("--device", rec.device, "softroce[:VERSION]: run the program inside the Soft-RoCE VM");
  rc->add_option("--timeout", rec.timeout_s,
                 "Seconds the command, and all it starts, may run before it is killed (TIMEOUT)")
      ->capture_default_str()
      ->check(in_range(1, 86400));
  rc->add_option("--preload", rec.preload, "The recorder library (default: libmwcheck_record.so beside mwcheck)");
  rc->add_flag("--kvm", rec.dev.kvm, "Soft-RoCE: boot with KVM (falls back to TCG)")->needs(rcdevice);
  rc->add_option("--program", rec.programs,
                 "A program the command runs by name (repeat for each): its folder goes first on PATH; "
                 "with --device, it goes into the guest with its shared libraries")
      ->allow_extra_args(false);
  rc->add_option("command", rec.command, "-- PROGRAM ARGS... (or -- sh -c 'A & B; wait')");
  rc->footer(
      "Several programs (a server and its client) are recorded together by one command line:\n"
      "  mwcheck record --device softroce --program ibv_rc_pingpong -o pp.mwt -- sh -c \\\n"
      "    'ibv_rc_pingpong -d rxe0 -g $MWCHECK_GID_INDEX -n 5 & sleep 3;\n"
      "     ibv_rc_pingpong -d rxe0 -g $MWCHECK_GID_INDEX -n 5 127.0.0.1; wait'\n"
      "In the guest, sh and the other commands are busybox's, the --program ones sit on PATH in\n"
      "/usr/local/bin, rxe0 has 10.77.0.1 and MWCHECK_GID_INDEX is its IPv4-mapped GID's index.\n"
      "Everything the command starts is recorded into one trace, and must end within --timeout\n"
      "(else TIMEOUT, exit 1).");
  FuzzOptions fuzz;
  auto* z = app.add_subcommand("fuzz", "Differential fuzzing of two backends, in process");
  z->add_option("--against,-a", fuzz.against, "A backend (give two): profile:NAME[+knob=alt...], mutant:NAME, device:NAME, "
                "device:softroce[:VERSION]")
      ->required()
      ->expected(2);
  z->add_option("--seed", fuzz.seed, "Random seed")
      ->capture_default_str()
      ->check(in_range<uint64_t>(0, UINT64_MAX));
  auto* zt = z->add_option("--time", fuzz.time, "Stop after this many seconds (default 60)")
                 ->check(in_range(0.001, 1e7));
  z->add_option("--runs", fuzz.runs, "Stop after this many inputs")
      ->excludes(zt)
      ->check(in_range<uint64_t>(1, UINT64_MAX));
  z->add_option("--out", fuzz.out, "Write each finding here as a minimized .mwt reproducer");
  z->add_option("--corpus", fuzz.corpus, "Seed traces (none: start from nothing)")
      ->default_str(default_corpus());
  z->add_flag("--keep-going", fuzz.keep_going, "Go on after the first finding");
  z->add_flag("--no-minimize{false}", fuzz.minimize,
              "(The guest's side of a Soft-RoCE campaign) write findings as found: the host shrinks them")
      ->group("");
  z->add_option("--report", fuzz.report,
                "Against the Soft-RoCE VM: write the findings' report.json, junit.xml and report.html here");
  z->add_option("--shrink-seconds", fuzz.shrink_seconds,
                "Against the Soft-RoCE VM: seconds all shrinking of the findings may take")
      ->capture_default_str()
      ->check(in_range(0.0, 86400.0));
  const DeviceOptions fuzz_dev = add_device_options(z, fuzz.dev);
  z->add_option("--max-ops", fuzz.max_ops, "Longest trace the mutator makes")
      ->capture_default_str()
      ->check(in_range<size_t>(1, 256));
  z->add_flag("--json", fuzz.json, "Print one JSON document at the end: coverage and findings");

  PowerOptions power;
  auto* w = app.add_subcommand("power", "Measure how fast fuzzing finds each mutant model");
  w->add_option("--seeds", power.seeds, "Campaigns per mutant (seeds 1..N)")
      ->capture_default_str()
      ->check(in_range(1, 100));
  w->add_option("--budget", power.budget, "Seconds a campaign may take")
      ->capture_default_str()
      ->check(in_range(0.001, 86400.0));
  w->add_option("--corpus", power.corpus, "Conformance corpus")->default_str(default_corpus());
  w->add_option("--mutant", power.mutants, "Measure only this mutant (repeatable; mwcheck mutants lists them)");
  w->add_flag("--json", power.json, "Print one JSON document: times to detect per mutant");

  ExportOptions ex;
  auto* x = app.add_subcommand("export", "Write a trace's or a finding's reproducer as a C program (libibverbs) and a pyverbs test");
  x->add_option("trace", ex.file,
                "The trace (.mwt or .mwb; - for standard input), or with --from a finding's id (F...); with "
                "--from and none, every finding");
  x->add_option("--from", ex.from,
                "A report.json of conform --device (or its folder): export the finding it names (every one, "
                "each into DIR/ID, when none is named), judged as that run judged it");
  x->add_option("--profile,-p", ex.profile, "With a trace: the expected outcomes are this profile's (+knob=alternative...)")
      ->capture_default_str();
  x->add_option("--op", ex.op, "With a trace: the op where the finding shows, counted from 1 as reports do (default: the last)")
      ->check(in_range(1L, std::numeric_limits<long>::max()));
  x->add_option("--id", ex.id, "With a trace: what the programs call the finding")->capture_default_str();
  x->add_option("--seen", ex.seen, "With a trace: what the device did at that op (an outcome, e.g. IBV_WC_SUCCESS)");
  x->add_option("-o,--output", ex.dir, "Folder: repro.mwt, repro.c, test_repro.py");
  auto* xdevice = x->add_option("--device,-d", ex.device,
                "softroce[:VERSION]: compile repro.c here, run it and test_repro.py in the Soft-RoCE VM "
                "(every finding's in one boot)");
  x->add_flag("--no-python", ex.no_python, "With --device: run only the C program (a smaller guest image)")
      ->needs(xdevice);
  x->add_flag("--kvm", ex.dev.kvm, "Soft-RoCE: boot with KVM (falls back to TCG)")->needs(xdevice);
  x->add_option("--run-here", ex.run_here, "(The guest's side) run these exported programs")->group("");

  // Hidden verbs, for the shell completion script and the man page the build writes.
  if (!args.empty() && args[0] == "__complete") return print_completion(app, args, out, err);
  if (!args.empty() && args[0] == "__man") return print_man_page(app, args, std::string(tool_version()), out, err);

  // `__parse ARGS...`: parse only (names, values, ranges, needs); CI recipes are checked so.
  const bool parse_only = !args.empty() && args[0] == "__parse";
  std::vector<const char*> argv{"mwcheck"};
  for (size_t i = parse_only ? 1 : 0; i < args.size(); ++i) argv.push_back(args[i].c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
    if (parse_only) return kExitOk;
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    print_parse_error(e, err);
    return kExitBadInput;
  }
  conform.command = args;
  if (conform.corpus.empty()) conform.corpus = default_corpus();
  if (fuzz.corpus.empty()) fuzz.corpus = default_corpus();
  if (power.corpus.empty()) power.corpus = default_corpus();
  // Device options checked against where each command runs, before it runs.
  const auto device_ok = [&](std::string_view verb, const DeviceOptions& given, DeviceTarget where,
                             DeviceConfig& dev) { return check_device_options(verb, given, where, dev, err); };
  if (*r && !device_ok("run", run_dev, {!run.device.empty(), is_softroce("device:" + run.device), run.files}, run.dev))
    return kExitBadInput;
  if (*d && !device_ok("diff", diff_dev, {names_device(diff.against), softroce_spec(diff.against) >= 0, diff.files},
                       diff.dev))
    return kExitBadInput;
  if (*f) {
    const bool vm = std::any_of(conform.devices.begin(), conform.devices.end(),
                                [](const auto& dv) { return is_softroce(dv) || is_softroce("device:" + dv); });
    if (!device_ok("conform", conform_dev, {!conform.devices.empty(), vm, corpus_names(conform.corpus)},
                   conform.dev))
      return kExitBadInput;
  }
  if (*z && !device_ok("fuzz", fuzz_dev,
                       {names_device(fuzz.against), softroce_spec(fuzz.against) >= 0,
                        fuzz.corpus == "none" ? std::vector<std::string>{} : corpus_names(fuzz.corpus)},
                       fuzz.dev))
    return kExitBadInput;
  if (*z) return cmd_fuzz(fuzz, out, err);
  if (*w) return cmd_power(power, out, err);
  if (*r) return cmd_run(run, out, err);
  if (*d) return cmd_diff(diff, out, err);
  if (*p) return cmd_profiles(profiles, out, err);
  if (*mu) return cmd_mutants(mutants, out, err);
  if (*dv) return cmd_devices(devices, out, err);
  if (*c) return cmd_convert(convert, out, err);
  if (*rp) return cmd_replay(replay, out, err);
  if (*g) return cmd_gen(gen, out, err);
  if (*rc) return cmd_record(rec, out, err);
  if (*x) return cmd_export(ex, out, err);
#ifdef MWCHECK_HAVE_PROVE
  if (*v) return cmd_prove(prove, out, err);
#endif
  return cmd_conform(conform, out, err);
}

}  // namespace mwc::cli
