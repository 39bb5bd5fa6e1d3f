// mwcheck conform --device DEV...: the corpus on devices, judged against the
// specification; findings first.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/device_report.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "cli/report.hpp"
#include "compare/run.hpp"
#include "findings/baseline.hpp"
#include "findings/judge.hpp"
#include "findings/shrink.hpp"
#include "refmodel/text_codec.hpp"
#include "util/output_dir.hpp"
#include "util/progress.hpp"
#include "util/temp_dir.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;
using namespace mwc::findings;
namespace {

using Clock = std::chrono::steady_clock;

// A device by name (rxe0, softroce:6.12) or any backend spec: a model or
// a mutant model stands in for a device in self-tests.
std::string device_spec(const std::string& d) {
  for (const char* p : {"device:", "profile:", "mutant:"})
    if (d.starts_with(p)) return d;
  return "device:" + d;
}

// The yardsticks the user names (`-p` and `--against`, "NAME" or
// "profile:NAME"), or the default ones. Returns false after printing why
// when one is no specification.
bool yardsticks_of(const ConformOptions& o, std::vector<ProfileId>& ys, std::ostream& err) {
  std::vector<std::string> names = o.against;
  names.insert(names.end(), o.profiles.begin(), o.profiles.end());
  for (std::string n : names) {
    if (n.starts_with("profile:")) n = n.substr(8);
    // A driver's release (rxe@6.12) is refused as its driver is.
    const size_t at = n.find('@');
    const auto id = profile_from_name(n.substr(0, at));
    const bool release = at != std::string::npos;
    if (!id || (release && profile_descs()[static_cast<int>(*id)].kind != ProfileKind::descriptive)) {
      err << fmt::format("mwcheck conform: error: unknown profile '{}' (profiles: {})\n", n, profile_names());
      return false;
    }
    if (profile_descs()[static_cast<int>(*id)].kind == ProfileKind::descriptive) {
      err << fmt::format("mwcheck conform: error: '{}' describes a driver; a device is judged by a "
                         "specification (--against ibta, verbs or det)\n", n);
      return false;
    }
    if (std::find(ys.begin(), ys.end(), *id) == ys.end()) ys.push_back(*id);
  }
  if (ys.empty()) ys = default_yardsticks();
  return true;
}

// The guest's side of shrinking: each corpus trace holds the finding its
// --target names; shrink them in turn within the time, streaming each
// result.
int shrink_targets(Backend& device, const ConformOptions& o, const std::vector<CorpusTrace>& corpus,
                   std::ostream& out, std::ostream& err) {
  std::string why;
  const auto y = o.against.size() == 1 ? parse_profile(o.against[0], why) : std::nullopt;
  if (!y || o.targets.size() != corpus.size()) {
    err << "mwcheck conform: error: --shrink takes one --against profile and one --target per trace"
        << (why.empty() ? "" : ": " + why) << "\n";
    return kExitBadInput;
  }
  std::map<uint64_t, bool> known;
  for (const auto& k : o.known) {
    const size_t eq = k.find('=');
    if (eq == std::string::npos) continue;
    known[std::strtoull(k.c_str(), nullptr, 10)] = k.substr(eq + 1) == "1";
  }
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(o.shrink_seconds));
  std::vector<Trace> starts;
  for (const auto& c : corpus) starts.push_back(c.trace);
  shrink_findings(device, starts, *y, o.targets, end, known, &err,
                  [&](size_t, const Shrunk& s) { out << stream_line(s) << std::endl; });
  return kExitOk;
}

// The corpus in the Soft-RoCE guest: the guest runs this very command
// against its rxe0 and streams results back; a trace the guest dies on is
// marked at the op it died in.
bool softroce_column(const std::string& spec, const ConformOptions& o,
                     const std::vector<std::string>& paths, const std::vector<CorpusTrace>& corpus,
                     DeviceColumn& col, std::ostream& err) {
  softroce::VmOptions vm;
  softroce::parse_device(spec, vm);
  vm.kvm = o.dev.kvm;
  std::vector<std::string> args = {"conform", "--device", "rxe0", "--stream", "--corpus", "corpus"};
  for (auto& a : device_args(o.dev)) args.push_back(a);
  col.spec = spec;
  for (const auto& c : corpus) {
    DeviceTrace t;
    t.trace = c.name;
    t.outcomes.assign(c.trace.ops.size(), Outcome{});
    for (auto& x : t.outcomes) x.ret = Result::kNOTRUN;
    col.traces.push_back(std::move(t));
  }
  err << fmt::format("{}: booting the Soft-RoCE VM\n", spec);
  Progress bar(&err, "traces run", corpus.size());
  const auto g = softroce::run_in_guest(
      vm, args, paths, false,
      [&](size_t i, long op, const std::string& how, const std::string& console) {
        // The ops before are unknown (NOTRUN: not compared).
        DeviceTrace& t = col.traces[i];
        const size_t at = op < 0 ? 0 : std::min<size_t>(static_cast<size_t>(op), t.outcomes.size() - 1);
        if (!t.outcomes.empty()) t.outcomes[at].ret = how == "CRASH" ? Result::kCRASH : Result::kTIMEOUT;
        t.note = fmt::format("the guest kernel {} in op {}:\n{}",
                             how == "CRASH" ? "crashed" : "went silent", at + 1, console);
      },
      [&](const std::string& line) {
        if (!line.starts_with(softroce::kTraceMarker)) return;
        const size_t i = std::strtoul(line.c_str() + softroce::kTraceMarker.size(), nullptr, 10);
        bar.update(std::min(i, corpus.size() - 1), i < corpus.size() ? corpus[i].name : "");
      });
  if (g.error.empty()) bar.update(corpus.size());
  if (!g.error.empty()) {
    err << fmt::format("mwcheck conform: error: {}: {}\n", spec, g.error);
    return false;
  }
  if (!read_device_stream(g.output, col)) {
    err << fmt::format("mwcheck conform: error: {}: the guest's results do not parse\n", spec);
    return false;
  }
  col.label = "softroce " + g.kernel_release;
  if (!g.incident.empty()) col.incident = g.incident;
  col.timing = fmt::format("image {:.1f} s, boot {:.1f} s, run {:.1f} s, total {:.1f} s ({} boot{})",
                           g.times.image_s, g.times.boot_s, g.times.run_s, g.times.total_s,
                           g.times.boots, g.times.boots == 1 ? "" : "s");
  return true;
}

// Shrinks findings in the guest, many candidates a boot. A candidate that
// kills the guest is an answer (yes for a kernel-crash finding, no for any
// other): the guest boots again and the shrinker, which is deterministic,
// replays the answers it had and goes on.
void shrink_in_guest(const std::string& spec, const ConformOptions& o, const Yardstick& y,
                     const std::vector<Finding*>& todo, DeviceColumn& col, std::ostream& err) {
  softroce::VmOptions vm;
  softroce::parse_device(spec, vm);
  vm.kvm = o.dev.kvm;
  vm.max_boots = 1;
  vm.quiet_limit_s = 60;  // rxe may hold a child ~50 s in a QP teardown
  const fs::path dir = temp_dir() /
                       fmt::format("mwcheck-shrink-{}-{}", getpid(), spec.substr(spec.rfind(':') + 1));
  fs::create_directories(dir);
  std::vector<std::string> files;
  for (const Finding* f : todo) {
    files.push_back((dir / (f->id + ".mwt")).string());
    std::ofstream(files.back()) << print_text(f->reproducer);
  }
  DeviceConfig quick = o.dev;
  quick.op_timeout_ms = std::min(quick.op_timeout_ms, 500);  // candidates that hang fail fast
  quick.inject.clear();  // faults name corpus traces; the guest shrinks files named by finding
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(o.shrink_seconds));
  std::map<uint64_t, bool> known;
  size_t next = 0;
  int boots = 0;
  err << fmt::format("{}: shrinking {} finding{} on the device\n", spec, todo.size(), todo.size() == 1 ? "" : "s");
  Progress bar(&err, "findings shrunk", todo.size());
  while (next < todo.size() && Clock::now() < deadline) {
    // The guest's share: what is left, less a boot.
    const double secs = std::max(1.0, std::chrono::duration<double>(deadline - Clock::now()).count() - 5);
    std::vector<std::string> args = {"conform", "--device", "rxe0", "--stream", "--shrink",
                                     "--against", y.profile.name, "--shrink-seconds",
                                     fmt::format("{:.1f}", secs), "--corpus", "corpus"};
    for (size_t i = next; i < todo.size(); ++i) args.insert(args.end(), {"--target", todo[i]->key});
    for (const auto& [h, yes] : known) args.insert(args.end(), {"--known", fmt::format("{}={}", h, yes ? 1 : 0)});
    for (auto& a : device_args(quick)) args.push_back(a);
    uint64_t last = 0;
    long died = -1;
    const auto g = softroce::run_in_guest(
        vm, args, std::vector<std::string>(files.begin() + static_cast<long>(next), files.end()), false,
        [&](size_t i, long, const std::string&, const std::string&) { died = static_cast<long>(i); },
        [&](const std::string& line) {
          if (line.starts_with(softroce::kTraceMarker)) {
            last = 0;
            const size_t i = next + std::strtoul(line.c_str() + softroce::kTraceMarker.size(), nullptr, 10);
            bar.update(std::min(i, todo.size() - 1), i < todo.size() ? todo[i]->id : "");
          }
          if (line.starts_with(softroce::kCandidateMarker))
            last = std::strtoull(line.c_str() + softroce::kCandidateMarker.size(), nullptr, 10);
        });
    ++boots;
    read_device_stream(g.output, col);
    if (!g.error.empty()) {
      err << fmt::format("{}: shrinking stopped: {}\n", spec, g.error);
      break;
    }
    if (died < 0) break;
    const size_t idx = next + static_cast<size_t>(died);
    if (last == 0) {  // it died before shrinking began: nothing to learn from
      Shrunk s;
      s.finding = todo[idx]->id;
      s.note = "the guest died before shrinking this finding began";
      col.shrunk.push_back(s);
      next = idx + 1;
      continue;
    }
    known[last] = todo[idx]->key.starts_with("crash|kernel");
    next = idx;
  }
  bar.update(todo.size());
  // A finding whose turn never came (the time ran out while the guest came
  // back, or before) says so rather than nothing.
  for (const Finding* f : todo)
    if (std::none_of(col.shrunk.begin(), col.shrunk.end(), [&](const Shrunk& s) { return s.finding == f->id; })) {
      Shrunk s;
      s.finding = f->id;
      s.note = std::string(kOutOfTime) + " before this finding's turn";
      col.shrunk.push_back(s);
    }
  fs::remove_all(dir);
  col.timing += fmt::format("; shrinking {:.1f} s ({} boot{})",
                            std::chrono::duration<double>(Clock::now() - start).count(), boots,
                            boots == 1 ? "" : "s");
}

// Shrinks findings on a device of this machine.
void shrink_here(Backend& device, const ConformOptions& o, const Yardstick& y,
                 const std::vector<Finding*>& todo, DeviceColumn& col, std::ostream& err) {
  // A finding may give two results (the second superseding): count each once.
  Progress bar(&err, "findings shrunk", todo.size());
  std::vector<bool> seen(todo.size());
  size_t done = 0;
  bar.update(0, todo[0]->id);
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(o.shrink_seconds));
  std::vector<Trace> starts;
  std::vector<std::string> keys;
  for (const Finding* f : todo) starts.push_back(f->reproducer), keys.push_back(f->key);
  shrink_findings(device, starts, y.profile, keys, end, {}, nullptr,
                  [&](size_t i, const Shrunk& s) {
                    col.shrunk.push_back(s);
                    if (i < seen.size() && !seen[i]) seen[i] = true, ++done;
                    bar.update(done, done < todo.size() ? todo[done]->id : "");
                  });
  bar.update(todo.size());
}

// The findings worth shrinking: every one but the unsupported. Kernel
// crashes go last: each candidate that reproduces one costs a boot, and
// shrinking them first would leave the cheap findings no time.
std::vector<Finding*> to_shrink(std::vector<Finding>& fs) {
  std::vector<Finding*> r;
  for (auto& f : fs)
    if (f.severity != Severity::unsupported) r.push_back(&f);
  std::stable_partition(r.begin(), r.end(), [](const Finding* f) { return !f->key.starts_with("crash|kernel"); });
  return r;
}

// Takes what shrinking gave into the device's findings.
void take_shrunk(const DeviceColumn& col, const Yardstick& y, std::vector<Finding>& fs) {
  for (const Shrunk& s : col.shrunk) {
    for (Finding& f : fs) {
      if (f.id != s.finding) continue;
      f.runs = s.runs;
      f.minimal = s.minimal;
      f.shrink_note = s.note;
      if (s.text.empty()) continue;
      auto t = parse_text(s.text);
      if (!std::holds_alternative<Trace>(t) || std::get<Trace>(t).ops.empty()) continue;
      f.reproducer = std::move(std::get<Trace>(t));
      f.reproducer_op = f.reproducer.ops.size() - 1;  // the finding's op stays last
    }
  }
  for (Finding& f : fs) {
    f.expected = run_model(f.reproducer, y.profile);
    // A crash groups traces whatever rule they met: the finding names the
    // rule its own reproducer meets.
    if (f.reproducer_op >= f.expected.size()) continue;
    const RuleDesc& rd = rule_desc(f.expected[f.reproducer_op].rule);
    f.rule_id = rd.id, f.source = rd.source, f.statement = rd.statement;
    f.expected_outcome = to_text(f.expected[f.reproducer_op]);
  }
}

// Returns the folder of attack traces to run with the corpus, or "".
std::string attacks_folder(const ConformOptions& o) {
  if (o.stream || o.attacks == "none") return "";  // the guest gets them as corpus files
  if (!o.attacks.empty()) return o.attacks;
  fs::path c = fs::path(o.corpus).lexically_normal();
  if (c.filename().empty()) c = c.parent_path();  // "corpus/conformance/"
  const fs::path beside = c.parent_path() / "attacks";
  std::error_code ec;
  return fs::is_directory(beside, ec) ? beside.string() : "";
}

}  // namespace

int cmd_conform_devices(const ConformOptions& o, std::ostream& out, std::ostream& err) {
  std::vector<std::string> paths;
  std::vector<Trace> traces;
  int loaded = load_corpus(o.corpus, paths, traces, err);
  if (paths.empty()) return kExitBadInput;
  if (const std::string dir = attacks_folder(o); !dir.empty()) {
    // The prover's counterexamples: what a description deviates by, tried
    // on the device as the corpus is.
    std::vector<std::string> more_paths;
    std::vector<Trace> more;
    loaded = std::max(loaded, load_corpus(dir, more_paths, more, err));
    for (size_t i = 0; i < more.size(); ++i) {
      paths.push_back(more_paths[i]);
      traces.push_back(std::move(more[i]));
    }
  }
  // A trace that does not load stops the run here, before the devices'
  // minutes (and a VM's boot), as fuzz's seeds do.
  if (loaded != kExitOk) return loaded;
  std::vector<CorpusTrace> corpus;
  for (size_t i = 0; i < paths.size(); ++i)
    corpus.push_back({fs::path(paths[i]).filename().string(), std::move(traces[i])});

  // The guest's sides: run the corpus, or shrink findings, and stream.
  if (o.stream) {
    if (o.devices.size() != 1 || softroce_spec({device_spec(o.devices[0])}) == 0) {
      err << "mwcheck conform: error: --stream runs on one device of this machine\n";
      return kExitBadInput;
    }
    std::string why;
    auto b = make_backend(device_spec(o.devices[0]), why, o.dev);
    if (!b) return err << "mwcheck conform: error: " << why << "\n", kExitBadInput;
    if (o.shrink) return shrink_targets(*b, o, corpus, out, err);
    run_device_corpus(*b, corpus, &out, nullptr);
    return kExitOk;
  }

  std::vector<ProfileId> yardsticks;
  if (!yardsticks_of(o, yardsticks, err)) return kExitBadInput;
  Provenance made{o.command, ""};
  if (!o.report.empty()) {
    std::string why;
    const auto when = report_time(why);
    if (!when) return err << "mwcheck conform: error: " << why << "\n", kExitBadInput;
    made.created = *when;
  }
  // The output folders, before the devices' minutes rather than after.
  for (const std::string& dir : {o.report, o.export_dir})
    if (std::string why; !dir.empty() && !make_output_dir(dir, why))
      return err << fmt::format("{}:1:1: error: cannot write there: {}\n", dir, why), kExitBadInput;
  std::optional<std::vector<Stored>> baseline;
  if (!o.baseline.empty()) {
    std::string why;
    baseline = read_stored(o.baseline, why);
    if (!baseline) return err << why << "\n", kExitBadInput;
  }

  // Every VM's image before the first device runs: a later device's
  // kernel that cannot be had is said now, not after the first's minutes.
  if (o.devices.size() > 1)
    for (const auto& d : o.devices)
      if (softroce::VmOptions vm; softroce_spec({device_spec(d)}) == 0 && softroce::parse_device(device_spec(d), vm))
        if (std::string why; !softroce::prepare_image(vm, why))
          return err << fmt::format("mwcheck conform: error: {}: {}\n", device_spec(d), why), kExitBadInput;
  std::vector<DeviceColumn> cols;
  std::vector<DeviceJudgment> judged;
  std::vector<double> seconds;
  for (const auto& d : o.devices) {
    const std::string spec = device_spec(d);
    DeviceColumn col;
    std::unique_ptr<Backend> b;
    const auto start = Clock::now();
    if (softroce_spec({spec}) == 0) {
      if (!softroce_column(spec, o, paths, corpus, col, err)) return kExitBadInput;
    } else {
      std::string why;
      b = make_backend(spec, why, o.dev);
      if (!b) return err << "mwcheck conform: error: " << why << "\n", kExitBadInput;
      col = run_device_corpus(*b, corpus, nullptr, &err);
    }
    DeviceJudgment j = judge_device(col, corpus, yardsticks);
    const auto todo = to_shrink(j.findings);
    if (!todo.empty() && o.shrink_seconds > 0) {
      if (b) shrink_here(*b, o, j.yardstick, todo, col, err);
      else shrink_in_guest(spec, o, j.yardstick, todo, col, err);
    }
    take_shrunk(col, j.yardstick, j.findings);
    if (!todo.empty() && o.shrink_seconds > 0) err << unfinished_line(spec, todo, o.shrink_seconds);
    if (b)
      col.timing = fmt::format("total {:.1f} s", std::chrono::duration<double>(Clock::now() - start).count());
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    cols.push_back(std::move(col));
    judged.push_back(std::move(j));
  }

  std::vector<std::vector<Finding>> per_device;
  std::vector<std::string> labels;
  for (size_t c = 0; c < cols.size(); ++c) per_device.push_back(judged[c].findings), labels.push_back(cols[c].label);
  Report rep{cols, judged, corpus, merge(per_device, labels), {}, made, seconds};
  if (baseline) rep.baseline = compare(rep.findings, *baseline);
  if (!o.export_dir.empty() && !export_findings(rep.findings, o.export_dir, err)) return kExitBadInput;

  print_device_report(rep, out);
  if (!o.report.empty() && !write_reports(o.report,
                                           {{"report.json", device_json(rep)},
                                            {"junit.xml", device_junit(rep)},
                                            {"report.html", device_html(rep, o.report)}},
                                           out, err))
    return kExitBadInput;
  // A failure is a finding that is no unsupported feature; with a
  // baseline, only a new one.
  bool failed = false;
  if (rep.baseline) {
    for (const Finding* f : rep.baseline->added) failed = failed || f->severity != Severity::unsupported;
  } else {
    for (const Finding& f : rep.findings) failed = failed || f.severity != Severity::unsupported;
  }
  return failed ? kExitFail : kExitOk;
}

}  // namespace mwc::cli
