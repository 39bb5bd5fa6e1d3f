// mwcheck conform --device DEV...: the corpus on devices, one column each.
#include <filesystem>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/device_conform.hpp"
#include "cli/device_report.hpp"
#include "adapters/minimize.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;
namespace {

std::string tail_line(const std::string& s) {
  const size_t end = s.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const size_t nl = s.rfind('\n', end);
  return s.substr(nl == std::string::npos ? 0 : nl + 1, end - (nl == std::string::npos ? 0 : nl + 1) + 1);
}

std::string device_spec(const std::string& d) {
  return d.starts_with("device:") ? d : "device:" + d;
}

// The corpus in the Soft-RoCE guest: the guest runs this very command
// against its rxe0 and streams results back; a trace the guest dies on is
// marked at its first op.
bool softroce_column(const std::string& spec, const ConformOptions& o,
                     std::optional<ProfileId> against_opt, const std::vector<std::string>& paths,
                     const std::vector<CorpusTrace>& corpus, DeviceColumn& col, std::ostream& err) {
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
  const auto g = softroce::run_in_guest(
      vm, args, paths, false,
      [&](size_t i, long op, const std::string& how, const std::string& console) {
        // The ops before are unknown (NOTRUN: not compared); the reproducer
        // is the trace up to the op: shrinking further would boot per try.
        DeviceTrace& t = col.traces[i];
        const size_t at = op < 0 ? 0 : std::min<size_t>(static_cast<size_t>(op), t.outcomes.size() - 1);
        if (!t.outcomes.empty()) t.outcomes[at].ret = how == "CRASH" ? Result::kCRASH : Result::kTIMEOUT;
        t.note = fmt::format("the guest kernel {} in op {}:\n{}",
                             how == "CRASH" ? "crashed" : "went silent", at + 1, console);
        std::vector<uint32_t> keep;
        for (uint32_t k = 0; k <= at; ++k) keep.push_back(k);
        t.reproducer = "# the trace up to the op the guest died in\n" +
                       print_text(keep_ops(corpus[i].trace, keep));
      },
      [&](const std::string& line) {
        if (!line.starts_with(softroce::kTraceMarker)) return;
        const size_t i = std::strtoul(line.c_str() + softroce::kTraceMarker.size(), nullptr, 10);
        const size_t w = 30, n = corpus.size(), fill = n ? std::min(i, n) * w / n : w;
        err << fmt::format("\r[{}{}] {}/{} {:<40.40}", std::string(fill, '#'),
                           std::string(w - fill, '.'), i, n, i < n ? corpus[i].name : "")
            << std::flush;
      });
  err << "\n";
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

  // Shrinking runs in a boot of its own, over the divergent traces only:
  // a guest that dies while shrinking one goes on with the next.
  const ProfileId against = against_opt ? *against_opt : closest_profile(col, corpus);
  std::vector<size_t> pick;
  std::vector<std::string> files;
  for (size_t i = 0; i < corpus.size(); ++i)
    if (shrinkable(col.traces[i], corpus[i], against)) pick.push_back(i), files.push_back(paths[i]);
  if (pick.empty()) return true;
  err << fmt::format("{}: shrinking {} divergence{} on the device\n", spec, pick.size(),
                     pick.size() == 1 ? "" : "s");
  std::vector<std::string> margs = {"conform", "--device", "rxe0", "--stream", "--minimize-only",
                                    "--against", std::string(profile_descs()[static_cast<int>(against)].name),
                                    "--minimize-runs", std::to_string(o.minimize_runs),
                                    "--corpus", "corpus"};
  // Shrinking tries many candidates that hang or time out: a short op
  // timeout makes them fail fast (a candidate that times out fails the
  // check anyway); a guest that dies (shrinking meets kernel bugs too) or
  // goes silent is booted again once for the traces after.
  DeviceConfig quick = o.dev;
  quick.op_timeout_ms = std::min(quick.op_timeout_ms, 500);
  for (auto& a : device_args(quick)) margs.push_back(a);
  std::string guest_says;
  softroce::VmOptions mvm = vm;
  mvm.max_boots = 2;
  mvm.quiet_limit_s = 60;  // rxe may hold a child ~50 s in a QP teardown
  const auto m = softroce::run_in_guest(
      mvm, margs, files, false,
      [&](size_t i, long, const std::string& how, const std::string& console) {
        col.traces[pick[i]].reproducer = fmt::format(
            "# not shrunk: the guest kernel {} while shrinking this trace:\n# {}\n",
            how == "CRASH" ? "died" : "went silent", tail_line(console));
      },
      [&](const std::string& line) {
        if (!line.starts_with("MWCHECK")) guest_says = line;  // its last word, if it fails
      });
  if (!m.error.empty() || !read_device_stream(m.output, col) || m.exit_code > 1)
    err << fmt::format("{}: shrinking failed: {} (guest exit {}: {})\n", spec, m.error, m.exit_code,
                       guest_says);
  for (size_t i : pick)
    if (col.traces[i].reproducer.empty())
      col.traces[i].reproducer = "# not shrunk: the guest kernel died or hung too often while shrinking\n";
  col.timing += fmt::format("; shrinking {:.1f} s ({} boot{})", m.times.total_s, m.times.boots,
                            m.times.boots == 1 ? "" : "s");
  return true;
}

}  // namespace

int cmd_conform_devices(const ConformOptions& o, std::ostream& out, std::ostream& err) {
  std::optional<ProfileId> against;
  if (!o.against.empty()) {
    against = profile_from_name(o.against);
    if (!against) {
      err << fmt::format("mwcheck conform: error: unknown profile '{}'\n", o.against);
      return kExitBadInput;
    }
  }
  std::vector<std::string> paths;
  std::vector<Trace> traces;
  int status = load_corpus(o.corpus, paths, traces, err);
  if (paths.empty()) return kExitBadInput;
  std::vector<CorpusTrace> corpus;
  for (size_t i = 0; i < paths.size(); ++i)
    corpus.push_back({fs::path(paths[i]).filename().string(), std::move(traces[i])});

  std::vector<DeviceColumn> cols;
  for (const auto& d : o.devices) {
    const std::string spec = device_spec(d);
    if (softroce_spec({spec}) == 0) {
      DeviceColumn col;
      if (!softroce_column(spec, o, against, paths, corpus, col, err)) return kExitBadInput;
      cols.push_back(std::move(col));
      continue;
    }
    std::string why;
    auto b = make_backend(spec, why, o.dev);
    if (!b) {
      err << "mwcheck conform: error: " << why << "\n";
      return kExitBadInput;
    }
    if (o.stream && o.minimize_only) {  // the guest's second boot
      DeviceColumn col = run_device_corpus(*b, corpus, nullptr, nullptr);
      minimize_divergences(*b, corpus, against.value_or(ProfileId::verbs), o.minimize_runs, col, &out);
      return status;
    }
    if (o.stream) {  // the guest's first boot: the host reads, shrinks and reports
      run_device_corpus(*b, corpus, &out, nullptr);
      return status;
    }
    const auto start = std::chrono::steady_clock::now();
    DeviceColumn col = run_device_corpus(*b, corpus, nullptr, &err);
    minimize_divergences(*b, corpus, against ? *against : closest_profile(col, corpus),
                         o.minimize_runs, col, nullptr);
    col.timing = fmt::format("total {:.1f} s", std::chrono::duration<double>(
                                                   std::chrono::steady_clock::now() - start).count());
    cols.push_back(std::move(col));
  }

  std::vector<DeviceAnalysis> an;
  for (const auto& c : cols) an.push_back(analyze(c, corpus));
  print_device_report(cols, an, corpus, out);
  if (!o.report.empty()) {
    std::error_code ec;
    fs::create_directories(o.report, ec);
    const fs::path dir = o.report;
    if (ec || !write_device_json(cols, an, corpus, (dir / "report.json").string()) ||
        !write_device_junit(cols, an, corpus, (dir / "junit.xml").string()) ||
        !write_device_html(cols, an, corpus, (dir / "report.html").string())) {
      err << fmt::format("{}:1:1: error: cannot write the reports\n", o.report);
      return kExitBadInput;
    }
    out << fmt::format("reports: {} {} {}\n", (dir / "report.json").string(),
                       (dir / "junit.xml").string(), (dir / "report.html").string());
  }
  bool diverged = false;
  for (const auto& a : an)
    for (const auto& t : a.traces)
      diverged = diverged || (t.verdict != TraceVerdict::match && t.verdict != TraceVerdict::unsupported);
  if (status == kExitOk && diverged) status = kExitFail;
  return status;
}

}  // namespace mwc::cli
