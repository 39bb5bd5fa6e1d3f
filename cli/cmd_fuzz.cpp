#include <sys/utsname.h>
#include <filesystem>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/fuzz_device.hpp"
#include "cli/guest.hpp"
#include "cli/json_out.hpp"
#include "cli/load.hpp"
#include "fuzz/campaign.hpp"
#include "refmodel/text_codec.hpp"
#include "util/output_dir.hpp"
#include "util/progress.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {

std::string outcome_line(const Backend& b, const Outcome& o) {
  return fmt::format("{}: {} (rule {})", b.name(), to_text(o), rule_desc(o.rule).id);
}

// Returns the backend's spec as the user gives it on the host: inside the
// Soft-RoCE guest the device is rxe0, but the user named the VM (bookworm's
// 6.1 kernel is the default one, others by their version).
std::string user_spec(const Backend& b) {
  if (!softroce::in_guest() || b.name() != "device:rxe0") return b.name();
  utsname u{};
  uname(&u);
  const std::string r = u.release;  // 6.12.117+deb12-amd64
  const std::string mm = r.substr(0, r.find('.', r.find('.') + 1));
  return mm == "6.1" ? "device:softroce" : "device:softroce:" + mm;
}

// Returns the reproducer: the minimized trace, with comments saying how it
// was found and how to replay it, and both outcomes where the backends part.
Trace reproducer(const fuzz::Finding& f, const Backend& a, const Backend& b, const FuzzOptions& o) {
  Trace t = f.trace;
  const auto& d = f.divergence;
  t.comments = {
      {0, false, fmt::format(" found by mwcheck fuzz --against {} --against {} --seed {} --corpus {} (input {})",
                             a.name(), b.name(), o.seed, o.corpus, f.run)},
      {0, false, fmt::format(" reproduce: mwcheck diff -a {} -a {} FILE", user_spec(a), user_spec(b))},
      {static_cast<uint32_t>(d.op), true,
       fmt::format(" {}; {}", outcome_line(a, d.a), outcome_line(b, d.b))}};
  return t;
}

}  // namespace

// One round against the Soft-RoCE VM: this command, inside the guest, against
// its rxe0; the seeds go in as files, the reproducers come back as files.
int fuzz_in_softroce(const FuzzOptions& o, int vm, std::ostream& out, std::ostream& err) {
  std::vector<std::string> args = {"fuzz"};
  for (const auto& a : o.against) args.insert(args.end(), {"--against", is_softroce(a) ? "device:rxe0" : a});
  args.insert(args.end(), {"--seed", std::to_string(o.seed), "--max-ops", std::to_string(o.max_ops)});
  if (o.runs) args.insert(args.end(), {"--runs", std::to_string(o.runs)});
  if (o.time) args.insert(args.end(), {"--time", fmt::format("{}", o.time)});
  if (o.keep_going) args.push_back("--keep-going");
  if (!o.minimize) args.push_back("--no-minimize");
  if (o.json) args.push_back("--json");
  if (!o.out.empty()) args.insert(args.end(), {"--out", "out"});
  std::vector<std::string> paths;
  std::vector<Trace> seeds;
  if (o.corpus != "none" && load_corpus(o.corpus, paths, seeds, err) != kExitOk) return kExitBadInput;
  args.insert(args.end(), {"--corpus", paths.empty() ? "none" : "corpus"});
  for (auto& a : device_args(o.dev)) args.push_back(a);
  if (std::string why; !o.out.empty() && !make_output_dir(o.out, why))
    return err << fmt::format("{}:1:1: error: cannot write the findings: {}\n", o.out, why), kExitBadInput;
  return run_args_in_softroce(o.against[static_cast<size_t>(vm)], o.dev, args, paths, out, err,
                              false, o.out);
}

int cmd_fuzz(const FuzzOptions& o, std::ostream& out, std::ostream& err) {
  if (const int vm = softroce_spec(o.against); vm >= 0)
    return guest_backends_ok(o.against, vm, o.dev, "fuzz", err) ? fuzz_device_campaign(o, vm, out, err)
                                                                 : kExitBadInput;
  if (!o.report.empty())
    return err << "mwcheck fuzz: error: --report: findings are judged and reported against the Soft-RoCE VM "
                  "(-a device:softroce[:VERSION]); here each divergence is a reproducer in --out\n",
           kExitBadInput;
  std::unique_ptr<Backend> b[2];
  for (int i = 0; i < 2; ++i) {
    std::string why;
    b[i] = make_backend(o.against[i], why, o.dev);
    if (!b[i]) {
      err << "mwcheck fuzz: error: " << why << "\n";
      return kExitBadInput;
    }
  }
  std::vector<std::string> paths;
  std::vector<Trace> seeds;  // "none": start from nothing
  if (o.corpus != "none" && load_corpus(o.corpus, paths, seeds, err) != kExitOk) return kExitBadInput;
  if (std::string why; !o.out.empty() && !make_output_dir(o.out, why))
    return err << fmt::format("{}:1:1: error: cannot write the findings: {}\n", o.out, why), kExitBadInput;
  fuzz::CampaignOptions co;
  co.seed = o.seed;
  co.runs = o.runs;
  co.seconds = o.time;
  co.keep_going = o.keep_going;
  co.max_ops = o.max_ops;
  co.minimize = o.minimize;
  if (co.runs == 0 && co.seconds == 0) co.seconds = 60;

  const auto status_line = [](const fuzz::CampaignStatus& s) {
    return fmt::format("#{} {:.1f}s {:.0f} execs/s  ops {}/{}  rules {}/{}  branches {} ({} refusals)  pool {}  "
                       "findings {}",
                       s.runs, s.seconds, s.execs_per_second(), s.ops_covered, kOpCount, s.rules_covered,
                       kRuleCount, s.branches, s.refusals, s.pool, s.findings);
  };
  std::vector<std::string> written;
  bool write_failed = false;
  fuzz::CampaignHooks hooks;
  // A line a second (a log keeps them all), with the time left of the
  // campaign's budget, in seconds or in inputs.
  hooks.progress = [&](const fuzz::CampaignStatus& s) {
    const std::string left = co.runs ? Progress::eta(s.seconds, s.runs, co.runs)
                                     : Progress::eta(s.seconds, static_cast<size_t>(s.seconds * 1000),
                                                     static_cast<size_t>(co.seconds * 1000));
    err << status_line(s) << (left.empty() ? "" : "  ETA " + left) << std::endl;
  };
  hooks.finding = [&](const fuzz::Finding& f) {
    const auto& d = f.divergence;
    err << fmt::format("finding {} at input {} ({:.2f}s): op {} {}\n  {}\n  {}\n", written.size() + 1,
                       f.run, f.seconds, d.op + 1, op_to_text(f.trace.ops[d.op]), outcome_line(*b[0], d.a),
                       outcome_line(*b[1], d.b));
    const std::string path =
        (fs::path(o.out.empty() ? "." : o.out) /
         fmt::format("finding-{}-{}-{}.mwt", written.size() + 1, rule_desc(d.a.rule).id, rule_desc(d.b.rule).id))
            .string();
    if (!o.out.empty()) {
      const Trace r = reproducer(f, *b[0], *b[1], o);
      if (!save_trace(r, path, out, err)) write_failed = true;
      send_file(path, print_text(r), out);  // inside the Soft-RoCE guest: to the host
    }
    written.push_back(o.out.empty() ? "" : path);
  };
  fuzz::CampaignStatus st;
  const auto findings = fuzz::run_campaign(*b[0], *b[1], seeds, co, hooks, st);

  if (o.json) {
    nlohmann::ordered_json doc{{"a", b[0]->name()}, {"b", b[1]->name()}, {"seed", o.seed},
                               {"runs", st.runs}, {"seconds", st.seconds},
                               {"execs_per_second", st.execs_per_second()},
                               {"ops_covered", st.ops_covered}, {"ops", kOpCount},
                               {"rules_covered", st.rules_covered}, {"rules", kRuleCount},
                               {"branches", st.branches}, {"refusals", st.refusals}, {"pool", st.pool},
                               {"rules_unreached", nlohmann::ordered_json::array()},
                               {"findings", nlohmann::ordered_json::array()}};
    for (int r = 0; r < kRuleCount; ++r)
      if (!st.rules_seen[r]) doc["rules_unreached"].push_back(rule_descs()[r].id);
    for (size_t i = 0; i < findings.size(); ++i) {
      const auto& f = findings[i];
      const auto& d = f.divergence;
      doc["findings"].push_back({{"input", f.run}, {"seconds", f.seconds}, {"ops", f.trace.ops.size()},
                                 {"op", d.op + 1}, {"text", op_to_text(f.trace.ops[d.op])},
                                 {"a", outcome_json(d.a)}, {"b", outcome_json(d.b)},
                                 {"file", written[i]}});
    }
    print_json(out, doc);
    if (write_failed) return kExitBadInput;
    return findings.empty() ? kExitOk : kExitFail;
  }
  out << fmt::format("fuzz: {} against {}, seed {}: {}\n", b[0]->name(), b[1]->name(), o.seed, status_line(st));
  std::string unreached;
  for (int r = 0; r < kRuleCount; ++r)
    if (!st.rules_seen[r]) unreached += " " + std::string(rule_descs()[r].id);
  if (!unreached.empty()) out << "  rules no input reached:" << unreached << "\n";
  std::vector<Profile> profiles;  // the model sides'
  for (const auto& side : b)
    if (side->profile()) profiles.push_back(*side->profile());
  if (!profiles.empty()) out << fuzz::coverage_table(st.coverage, profiles);
  for (size_t i = 0; i < findings.size(); ++i) {
    const auto& f = findings[i];
    out << fmt::format("  finding {}: input {} ({:.2f}s), {} ops, {} vs {} at {}{}\n", i + 1, f.run,
                       f.seconds, f.trace.ops.size(), rule_desc(f.divergence.a.rule).id,
                       rule_desc(f.divergence.b.rule).id, op_desc(f.trace.ops[f.divergence.op].code).name,
                       written[i].empty() ? "" : " -> " + written[i]);
  }
  if (write_failed) return kExitBadInput;
  return findings.empty() ? kExitOk : kExitFail;
}

}  // namespace mwc::cli
