// The verbs of mwcheck. Each returns the program's exit status.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "adapters/backend.hpp"
#include "replay/gen.hpp"

namespace mwc::cli {

struct RunOptions {
  std::string profile = "verbs";
  std::string device;  // runs on this device instead (rxe0, softroce[:VERSION])
  DeviceConfig dev;
  bool check = false;
  bool quiet = false;
  bool json = false;  // one JSON document on stdout (cli/schema/output.schema.json)
  std::vector<std::string> files;
};
int cmd_run(const RunOptions& o, std::ostream& out, std::ostream& err);

struct DiffOptions {
  std::vector<std::string> against;
  bool json = false;
  DeviceConfig dev;
  std::vector<std::string> files;
};
int cmd_diff(const DiffOptions& o, std::ostream& out, std::ostream& err);

struct ProfilesOptions {
  bool json = false;
};
int cmd_profiles(const ProfilesOptions& o, std::ostream& out, std::ostream& err);

// mwcheck mutants, mwcheck devices: tables, or JSON.
struct ListOptions {
  bool json = false;
};
int cmd_mutants(const ListOptions& o, std::ostream& out, std::ostream& err);
int cmd_devices(const ListOptions& o, std::ostream& out, std::ostream& err);

struct ConvertOptions {
  std::string in, out;  // -: standard input, output
  bool binary = false;  // .mwb whatever out's name
};
int cmd_convert(const ConvertOptions& o, std::ostream& out, std::ostream& err);

struct ConformOptions {
  std::vector<std::string> profiles;  // without --device: the profiles to run; with it: yardsticks
  std::vector<std::string> devices;   // rxe0, mlx5_0, softroce[:VERSION]; one column each
  DeviceConfig dev;
  // With --device: the normative profiles the devices are judged by
  // (default: every normative one); in the guest's shrinking boot, the
  // fitted yardstick itself (verbs+knob=alt...).
  std::vector<std::string> against;
  bool stream = false;  // print device results as JSON lines (the VM guest's side)
  bool shrink = false;  // with stream: shrink the finding --target names in each corpus trace
  std::vector<std::string> targets;  // finding keys, one per corpus trace, in order
  // With devices: the prover's attack traces, run after the corpus (empty:
  // the attacks folder beside the corpus, when there is one; "none": not).
  std::string attacks;
  std::vector<std::string> known;    // HASH=0|1: candidates answered in earlier boots
  // Shrinking all findings of one device may take this long: a bound, not a
  // wait (rxe 6.1's eleven take 270 s here, most of it boots).
  double shrink_seconds = 600;
  std::string baseline;              // a report.json to compare the findings with
  std::string export_dir;            // write each finding's reproducer, C and pyverbs here
  std::string corpus;
  std::string report;
  std::vector<std::string> command;  // the arguments after "mwcheck", for report.json
};
int cmd_conform(const ConformOptions& o, std::ostream& out, std::ostream& err);
int cmd_conform_devices(const ConformOptions& o, std::ostream& out, std::ostream& err);

struct RecordOptions {
  std::string out;       // the trace: .mwb for binary, else text
  std::string log;       // keep the recorder's log here
  std::string from_log;  // convert this log instead of running a program
  std::string preload;   // the recorder library (default: beside mwcheck)
  std::string device;    // softroce[:VERSION]: record inside the VM
  DeviceConfig dev;
  int timeout_s = 600;   // the command, and all it started, is killed after this
  std::vector<std::string> programs;  // run by name: first on PATH (in the guest: brought in)
  std::vector<std::string> command;  // PROGRAM ARGS...
};
int cmd_record(const RecordOptions& o, std::ostream& out, std::ostream& err);

struct ProveOptions {
  bool json = false;
  std::string witness_dir;
  int traces = 0;  // > 0: the trace proofs, over traces of up to this many verbs
  std::string scope = "pd=2,mr=2,mw=2,qp=2";
  std::vector<std::string> profiles;
};
// mwcheck prove --traces: the security invariants over whole traces.
int cmd_prove_traces(const ProveOptions& o, std::ostream& out, std::ostream& err);
int cmd_prove(const ProveOptions& o, std::ostream& out, std::ostream& err);

struct ReplayOptions {
  std::string profile = "verbs";
  int threads = 1;
  bool quiet = false;  // no throughput figures
  bool json = false;
  std::vector<std::string> files;
};
int cmd_replay(const ReplayOptions& o, std::ostream& out, std::ostream& err);

struct GenOptions {
  replay::GenOptions gen;
  std::string out;
  bool binary = false;  // binary even without the .mwb extension (for "-")
  uint32_t shards = 1;  // files split by PD: FILE.0.mwb, FILE.1.mwb...
};
int cmd_gen(const GenOptions& o, std::ostream& out, std::ostream& err);
struct FuzzOptions {
  std::vector<std::string> against;
  uint64_t seed = 1;
  double time = 0;     // seconds
  uint64_t runs = 0;
  std::string out;
  std::string corpus;  // seed traces ("none": start from nothing)
  bool keep_going = false;
  size_t max_ops = 64;
  bool json = false;
  DeviceConfig dev;
  bool minimize = true;         // minimize each finding (the guest's side of a VM campaign: not)
  std::string report;           // with the Soft-RoCE VM: the findings' reports
  double shrink_seconds = 600;  // ... and how long shrinking them may take (as conform's)
};
int cmd_fuzz(const FuzzOptions& o, std::ostream& out, std::ostream& err);

struct PowerOptions {
  int seeds = 5;
  double budget = 60;  // seconds per campaign
  std::string corpus;
  std::vector<std::string> mutants;  // only these (none: every mutant)
  bool json = false;
};
int cmd_power(const PowerOptions& o, std::ostream& out, std::ostream& err);

struct ExportOptions {
  std::string file;              // the trace, or with `from` a finding's id
  std::string from;              // a report.json (or its folder) holding the finding
  std::string profile = "verbs";  // the expected outcomes are this profile's
  long op = -1;                   // the op where the finding shows (-1: the last)
  std::string dir;                // writes repro.mwt, repro.c, test_repro.py here
  std::string id = "mwcheck-repro";  // what the programs call the finding
  std::string seen;               // what the device did at op (an outcome), if known
  std::string device;             // softroce[:VERSION]: run the exports there
  DeviceConfig dev;
  bool no_python = false;         // with device: only the C program
  std::vector<std::string> run_here;  // inside the guest: run these exported programs
};
int cmd_export(const ExportOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
