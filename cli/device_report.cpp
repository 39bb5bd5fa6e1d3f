#include "cli/device_report.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "adapters/kernel/oops.hpp"
#include "cli/report.hpp"
#include "exports/export.hpp"
#include "findings/shrink.hpp"
#include "refmodel/text_codec.hpp"
#include "util/output_dir.hpp"

namespace mwc::cli {
using namespace mwc::findings;
namespace fs = std::filesystem;
namespace {

std::string_view pname(ProfileId p) { return profile_descs()[static_cast<int>(p)].name; }

// Returns the names of the profiles and releases of j.matched that `bits`
// marks (RuleRow::agree), or "none".
std::string profiles_in(const DeviceJudgment& j, uint32_t bits) {
  std::string s;
  for (size_t p = 0; p < j.matched.size(); ++p)
    if ((bits >> p) & 1) s += (s.empty() ? "" : " ") + j.matched[p].profile;
  return s.empty() ? "none" : s;
}

// Returns the names of the profiles a device resembles most
// (closest_profiles()), joined by `sep`.
std::string closest_names(const DeviceJudgment& j, std::string_view sep) {
  std::string s;
  for (const size_t p : closest_profiles(j)) s += (s.empty() ? "" : std::string(sep)) + j.matched[p].profile;
  return s;
}

// Returns the profile a device resembles most, with the traces each
// profile matches (and, where that ties, the ops); profiles that no trace
// tells apart are named together.
std::string resembles_line(const DeviceJudgment& j) {
  std::string m, tied;
  bool broken = false;
  const ProfileMatch& best = j.matched[j.closest];
  for (const ProfileMatch& p : j.matched) {
    m += fmt::format("{}{} {}", m.empty() ? "" : ", ", p.profile, p.traces);
    if (p.traces == best.traces && &p != &best) {
      tied += fmt::format(", {} {}", p.profile, p.ops);
      broken = broken || p.ops != best.ops;
    }
  }
  // A tie on traces is broken by the ops matched: say so, with the figures.
  if (broken)
    m += fmt::format("; of those matching {}, the most ops before diverging: {} {}{}", best.traces, best.profile,
                     best.ops, tied);
  if (closest_profiles(j).size() > 1)
    return fmt::format("resembles most, alike: {} (no trace here tells them apart; traces each profile matches as "
                       "it stands: {})",
                       closest_names(j, ", "), m);
  return fmt::format("resembles most: {} (traces each profile matches as it stands: {})", best.profile, m);
}

// Returns "rxe vs rxe@6.12" where two devices resemble different profiles
// (two releases of a driver: which each behaves as), else "" (also where
// a profile one resembles most ties with one the other does: no change
// can be claimed). Tied profiles are joined by " = ".
std::string resembles_change(const DeviceJudgment& a, const DeviceJudgment& b) {
  for (const size_t x : closest_profiles(a))
    for (const size_t y : closest_profiles(b))
      if (a.matched[x].profile == b.matched[y].profile) return "";
  return closest_names(a, " = ") + " vs " + closest_names(b, " = ");
}

// The rule table's column of the profiles and releases (RuleRow::agree).
constexpr std::string_view kAgreeColumn = "profiles that agree";

std::string cell(const RuleRow& r) {
  if (r.checked == 0) return "-";
  if (r.failed == 0) return fmt::format("ok {}", r.checked);
  return fmt::format("FAIL {}/{}", r.failed, r.checked);
}

std::string join(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

std::string shrink_line(const Finding& f) {
  std::string s = fmt::format("{} op{}", f.reproducer.ops.size(), f.reproducer.ops.size() == 1 ? "" : "s");
  if (f.severity == Severity::unsupported) return s;
  if (f.runs == 0 && f.shrink_note.empty())  // shrinking did not run (--shrink-seconds 0)
    return s + ", its shortest trace up to the op where it shows; not shrunk";
  s += fmt::format(", shrunk from {} in {} device run{}", f.ops_before, f.runs, f.runs == 1 ? "" : "s");
  s += f.minimal ? ", 1-minimal on the device" : ", not shown 1-minimal: " + f.shrink_note;
  return s;
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string o, line;
  for (const char ch : text) {
    if (ch != '\n') {
      line += ch;
      continue;
    }
    o += pad + line + "\n";
    line.clear();
  }
  if (!line.empty()) o += pad + line + "\n";
  return o;
}

// Returns the line that says a finding's kernel report is another's: it
// came as the trace's process exited (Finding::kernel_same_as).
std::string exit_report_line(const Finding& f) {
  return fmt::format("the kernel reported, as {}'s process exited, what {} shows ({}): the exit's cleanup "
                     "reached that bug, not this finding's op",
                     f.kernel_trace, f.kernel_same_as, kernel::report_site(f.kernel));
}

// Returns the rules whose verdict differs between two devices.
std::vector<std::string> rule_changes(const DeviceJudgment& a, const DeviceJudgment& b) {
  std::vector<std::string> r;
  for (int k = 0; k < kRuleCount; ++k)
    // A verdict that changed (ok on one, failing on the other), not a count.
    if ((a.rules[k].failed > 0) != (b.rules[k].failed > 0))
      r.push_back(fmt::format("{}: {} vs {}", rule_descs()[k].id, cell(a.rules[k]), cell(b.rules[k])));
  return r;
}

std::string knob_line(const DeviceJudgment& j, int k) {
  const KnobPrint& kp = j.yardstick.knobs[k];
  std::string s = kp.verdict;
  if (kp.adopted) s += "; a reading: the yardstick follows it";
  return s;
}

}  // namespace

// As "11 findings (5 security, 2 crash, ...); not run, listed apart: 1 verb
// or state the device lacks, 1 verb libibverbs lacks, 1 op beyond mwcheck's
// device session" (each part only when there is one), so that only the
// device's own lacks are counted as its.
std::string counts_line(const std::vector<Finding>& fs) {
  const auto n = count(fs);
  std::string s;
  size_t failing = 0;
  for (int k = 0; k < kSeverityCount - 1; ++k) {
    failing += n[k];
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", n[k], name(static_cast<Severity>(k)));
  }
  std::array<size_t, kLackCount> lacks{};
  for (const Finding& f : fs)
    if (f.severity == Severity::unsupported) ++lacks[static_cast<size_t>(lack_of(f))];
  constexpr std::array<std::array<std::string_view, 2>, kLackCount> kWhat{{
      {"verb or state the device lacks", "verbs or states the device lacks"},
      {"verb libibverbs lacks", "verbs libibverbs lacks"},
      {"op beyond mwcheck's device session", "ops beyond mwcheck's device session"},
  }};
  std::string apart;
  for (size_t k = 0; k < lacks.size(); ++k)
    if (lacks[k]) apart += fmt::format("{}{} {}", apart.empty() ? "" : ", ", lacks[k], kWhat[k][lacks[k] != 1]);
  return fmt::format("{} finding{} ({}); {}", failing, failing == 1 ? "" : "s", s,
                     apart.empty() ? "nothing unsupported" : "not run, listed apart: " + apart);
}

void print_device_report(const Report& r, std::ostream& out) {
  out << fmt::format("\n== findings: {} ==\n", counts_line(r.findings));
  for (size_t c = 0; c < r.cols.size(); ++c)
    out << fmt::format("{} judged by {}\n", r.cols[c].label, r.judged[c].yardstick.profile.name);
  for (const Finding& f : r.findings) {
    out << fmt::format("\n[{}] {} {}\n", name(f.severity), f.id, f.summary);
    out << fmt::format("  rule {} ({}): {}\n", f.rule_id, f.source, f.statement);
    out << fmt::format("  {} => device {}; the specification: {}\n", f.op,
                       outcome_words(f, f.device_outcome, f.expected_outcome),
                       outcome_words(f, f.expected_outcome, f.device_outcome));
    if (!f.signature.empty()) out << fmt::format("  where: {}\n", f.signature);
    if (!f.kernel_same_as.empty())
      out << fmt::format("  {}\n", exit_report_line(f));
    else if (!f.kernel.empty())
      out << fmt::format("  the kernel reported, as {} ran:\n{}", f.kernel_trace, indent(f.kernel, "    "));
    out << fmt::format("  shows on: {}{}\n", join(f.devices),
                       f.absent_on.empty() ? "" : "; absent on: " + join(f.absent_on));
    std::string tr;
    for (const auto& t : f.traces) tr += fmt::format("{}{} op {}", tr.empty() ? "" : ", ", t.trace, t.op + 1);
    out << fmt::format("  traces: {}\n", tr);
    out << fmt::format("  reproducer ({}):\n{}", shrink_line(f), indent(print_text(f.reproducer), "    "));
    if (!f.exports.empty()) out << fmt::format("  exports: {}\n", join(f.exports, " "));
  }
  // What the kernel reported as a trace ran that belongs to no finding
  // (none listed apart either): no rule of the model's broken, but one of
  // the kernel's own checks failed.
  for (size_t c = 0; c < r.cols.size(); ++c) {
    bool head = false;
    for (size_t t = 0; t < r.corpus.size() && t < r.cols[c].traces.size(); ++t) {
      const DeviceTrace& d = r.cols[c].traces[t];
      if (d.kernel.empty() || !r.judged[c].symptoms[t].key.empty()) continue;
      if (!head) out << fmt::format("\n== the kernel reported on {}, as traces with no finding ran ==\n", r.cols[c].label);
      head = true;
      out << fmt::format("  {}:\n{}", d.trace, indent(d.kernel, "    "));
    }
  }
  if (r.cols.size() > 1) {
    out << "\n== between the devices ==\n";
    bool any = false;
    for (const Finding& f : r.findings)
      if (!f.absent_on.empty()) {
        out << fmt::format("  {} {}: on {}, not on {}\n", f.id, name(f.severity), join(f.devices), join(f.absent_on));
        any = true;
      }
    for (size_t i = 0; i < r.cols.size(); ++i)
      for (size_t j = i + 1; j < r.cols.size(); ++j) {
        for (const auto& line : rule_changes(r.judged[i], r.judged[j])) {
          out << fmt::format("  rule {} ({} vs {})\n", line, r.cols[i].label, r.cols[j].label);
          any = true;
        }
        if (const std::string d = resembles_change(r.judged[i], r.judged[j]); !d.empty()) {
          out << fmt::format("  resembles most: {} ({} vs {})\n", d, r.cols[i].label, r.cols[j].label);
          any = true;
        }
      }
    if (!any) out << "  the same findings and rule verdicts on every device\n";
  }
  if (r.baseline) {
    const auto& b = *r.baseline;
    out << fmt::format("\n== against the baseline: {} new, {} fixed, {} unchanged ==\n", b.added.size(),
                       b.fixed.size(), b.unchanged.size());
    for (const Finding* f : b.added) out << fmt::format("  new      {} [{}] {}\n", f->id, name(f->severity), f->summary);
    for (const Stored& s : b.fixed) out << fmt::format("  fixed    {} [{}] {}\n", s.id, s.severity, s.summary);
    for (const Finding* f : b.unchanged) out << fmt::format("  unchanged {} [{}]\n", f->id, name(f->severity));
  }
  for (size_t c = 0; c < r.cols.size(); ++c) {
    const DeviceColumn& col = r.cols[c];
    const DeviceJudgment& j = r.judged[c];
    out << fmt::format("\n== {} ({}) ==\n", col.label, col.spec);
    size_t n[4] = {};
    for (const auto& s : j.symptoms) ++n[static_cast<int>(s.verdict)];
    out << fmt::format("traces: {} conform, {} show a finding, {} need what the device lacks, {} unknown\n",
                       n[0], n[1], n[2], n[3]);
    for (size_t t = 0; t < j.symptoms.size(); ++t)
      if (j.symptoms[t].verdict == Verdict::unknown)
        out << fmt::format("  unknown: {} op {}: {}\n", r.corpus[t].name, j.symptoms[t].op + 1, j.symptoms[t].why);
    out << resembles_line(j) << "\n";
    out << fmt::format("\nknob fingerprint (which reading it follows; against {}):\n", pname(j.yardstick.base));
    for (int k = 0; k < kKnobCount; ++k)
      out << fmt::format("  {:<18} {}\n", knob_descs()[k].name, knob_line(j, k));
    size_t rw = 4;
    for (const auto& rd : rule_descs()) rw = std::max(rw, rd.id.size());
    // The two columns judge differently: a reader who sees "ok" beside
    // "none" is told why that is no contradiction.
    out << fmt::format("\nrules: `device` is the yardstick's verdict on the ops each rule decided; `{}` are the "
                       "profiles and drivers' releases, as they stand, under which no trace first diverges from the "
                       "device at an op of the rule (none: each does on some trace, where the yardstick, with the "
                       "device's readings, may not)\n",
                       kAgreeColumn);
    out << fmt::format("{:<{}}  {:<10}  {:<32}  {}\n", "rule", rw, "device", kAgreeColumn, "source");
    for (int k = 0; k < kRuleCount; ++k) {
      if (j.rules[k].checked == 0) continue;
      out << fmt::format("{:<{}}  {:<10}  {:<32}  {}\n", rule_descs()[k].id, rw, cell(j.rules[k]),
                         profiles_in(j, j.rules[k].agree), rule_descs()[k].source);
    }
    if (!col.incident.empty()) out << fmt::format("incident: {}\n", col.incident);
    if (!col.timing.empty()) out << fmt::format("timing: {}\n", col.timing);
  }
  out << std::flush;
}

std::string unfinished_line(const std::string& device, const std::vector<Finding*>& shrunk, double seconds) {
  const auto minimal = std::count_if(shrunk.begin(), shrunk.end(), [](const Finding* f) { return f->minimal; });
  const auto late = std::count_if(shrunk.begin(), shrunk.end(), [](const Finding* f) {
    return !f->minimal && out_of_time(f->shrink_note);
  });
  if (late == 0) return "";
  return fmt::format("{}: {} of {} reproducers shown 1-minimal; the time for shrinking ({:g} s) ran out for {}: "
                     "give it more with --shrink-seconds\n",
                     device, minimal, shrunk.size(), seconds, late);
}

std::string device_json(const Report& r) {
  nlohmann::ordered_json j = report_header("device", r.made);
  j["summary"] = nlohmann::ordered_json::object();
  const auto n = count(r.findings);
  for (int k = 0; k < kSeverityCount; ++k) j["summary"][std::string(name(static_cast<Severity>(k)))] = n[k];
  j["findings"] = nlohmann::ordered_json::array();
  for (const Finding& f : r.findings) j["findings"].push_back(to_json(f));
  if (r.baseline) {
    auto& b = j["baseline"];
    b["new"] = b["fixed"] = b["unchanged"] = nlohmann::ordered_json::array();
    for (const Finding* f : r.baseline->added) b["new"].push_back(f->id);
    for (const Stored& s : r.baseline->fixed) b["fixed"].push_back(s.id);
    for (const Finding* f : r.baseline->unchanged) b["unchanged"].push_back(f->id);
  }
  for (size_t c = 0; c < r.cols.size(); ++c) {
    const DeviceJudgment& a = r.judged[c];
    nlohmann::ordered_json d{{"device", r.cols[c].spec}, {"label", r.cols[c].label},
                             {"yardstick", a.yardstick.profile.name}, {"closest_profile", a.matched[a.closest].profile},
                             {"closest_profiles", nlohmann::ordered_json::array()},
                             {"incident", r.cols[c].incident},
                             {"send_depths_granted", r.cols[c].send_depths}};
    for (const size_t p : closest_profiles(a)) d["closest_profiles"].push_back(a.matched[p].profile);
    for (const ProfileMatch& p : a.matched) d["profiles_matched"][p.profile] = p.traces;
    for (const ProfileMatch& p : a.matched) d["profiles_ops_matched"][p.profile] = p.ops;
    for (int k = 0; k < kRuleCount; ++k) {
      const auto& rd = rule_descs()[k];
      d["rules"].push_back({{"id", rd.id}, {"source", rd.source}, {"checked", a.rules[k].checked},
                            {"failed", a.rules[k].failed}, {"explained_by", profiles_in(a, a.rules[k].agree)}});
    }
    for (int k = 0; k < kKnobCount; ++k) {
      const KnobPrint& kp = a.yardstick.knobs[k];
      nlohmann::ordered_json jk{{"knob", knob_descs()[k].name}, {"verdict", kp.verdict},
                                {"follows", kp.follows < 0 ? "" : std::string(knob_descs()[k].alts[kp.follows].name)},
                                {"adopted", kp.adopted}, {"telling_traces", kp.telling}};
      for (size_t alt = 0; alt < kp.matches.size(); ++alt)
        jk["matches"][std::string(knob_descs()[k].alts[alt].name)] = kp.matches[alt];
      d["knobs"].push_back(jk);
    }
    for (size_t t = 0; t < r.corpus.size(); ++t) {
      const Symptom& s = a.symptoms[t];
      nlohmann::ordered_json jt{{"trace", r.corpus[t].name}, {"verdict", name(s.verdict)}};
      for (const auto& o : r.cols[c].traces[t].outcomes) jt["outcomes"].push_back(to_text(o));
      if (s.verdict != Verdict::match) {
        jt["op"] = s.op + 1;
        jt["device"] = to_text(s.device);
        jt["expected"] = to_text(s.model);
      }
      if (!s.key.empty()) jt["finding"] = finding_id(s.key);
      if (!s.why.empty()) jt["why"] = s.why;
      if (!r.cols[c].traces[t].note.empty()) jt["note"] = r.cols[c].traces[t].note;
      if (!r.cols[c].traces[t].kernel.empty()) jt["kernel"] = r.cols[c].traces[t].kernel;
      d["traces"].push_back(jt);
    }
    j["devices"].push_back(d);
  }
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string device_junit(const Report& r) {
  const auto secs = [&](size_t c) { return c < r.seconds.size() ? r.seconds[c] : 0.0; };
  double total = 0;
  for (size_t c = 0; c < r.cols.size(); ++c) total += secs(c);
  std::string x = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mwcheck conform "
                              "--device\" time=\"{}\">\n", junit_time(total));
  for (size_t c = 0; c < r.cols.size(); ++c) {
    const std::string& label = r.cols[c].label;
    std::vector<const Finding*> here;
    for (const Finding& f : r.findings)
      if (std::find(f.devices.begin(), f.devices.end(), label) != f.devices.end()) here.push_back(&f);
    // Crashes and hangs are errors (the test could not run to its end),
    // the rest failures; unsupported features are skipped.
    size_t failures = 0, errors = 0, skipped = 0;
    for (const Finding* f : here)
      (f->severity == Severity::unsupported                               ? skipped
       : f->severity == Severity::crash || f->severity == Severity::hang ? errors
                                                                          : failures)++;
    // One testcase per finding, and one for the traces that conform: it
    // carries the device's time (a finding's own is not measured apart).
    x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
                     "time=\"{}\">\n",
                     xml_escape(label), here.size() + 1, failures, errors, skipped, junit_time(secs(c)));
    size_t conform = 0;
    for (const auto& s : r.judged[c].symptoms) conform += s.verdict == Verdict::match;
    x += fmt::format("    <testcase classname=\"conformance.{}\" name=\"{} traces conform\" time=\"{}\"/>\n",
                     junit_name(label), conform, junit_time(secs(c)));
    for (const Finding* f : here) {
      x += fmt::format("    <testcase classname=\"findings.{}\" name=\"{} {}\" time=\"0\"", junit_name(label), f->id,
                       xml_escape(f->summary));
      if (f->severity == Severity::unsupported) {
        x += fmt::format("><skipped message=\"{}\"/></testcase>\n", xml_escape(f->summary));
        continue;
      }
      const char* tag = f->severity == Severity::crash || f->severity == Severity::hang ? "error" : "failure";
      x += fmt::format("><{} type=\"{}\" message=\"{}\">rule {} ({}): {}\n{}</{}></testcase>\n", tag,
                       name(f->severity), xml_escape(f->summary), f->rule_id, xml_escape(f->source),
                       xml_escape(f->statement), xml_escape(print_text(f->reproducer)), tag);
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

std::string device_html(const Report& r, const std::string& dir) {
  std::string h = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mwcheck conform --device</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:75em}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#eee}.ok{background:#c8efc8}.fail{background:#f6b8b8}.none{background:#eee;color:#888}
.unsupported{background:#fde9a8}pre{background:#f7f7f7;padding:.6em;overflow-x:auto}
.finding{border-left:6px solid #999;padding:.2em 1em;margin:1em 0}
.security{border-color:#b00020;background:#fdecee}.crash{border-color:#d35400;background:#fdf0e6}
.hang{border-color:#8e44ad;background:#f5eefa}.conformance{border-color:#c9a000;background:#fffbe6}
.unsupported.finding{border-color:#888;background:#f4f4f4}
.sev{font-weight:bold;text-transform:uppercase;font-size:85%}
small{color:#666}
</style></head><body>
<h1>mwcheck conform: devices against the specification</h1>
)";
  h += fmt::format("<p><b>{}</b></p>\n<ul>", xml_escape(counts_line(r.findings)));
  for (size_t c = 0; c < r.cols.size(); ++c)
    h += fmt::format("<li>{} judged by <code>{}</code>; {}</li>", xml_escape(r.cols[c].label),
                     xml_escape(r.judged[c].yardstick.profile.name), xml_escape(resembles_line(r.judged[c])));
  h += "</ul>\n<p><small>Each device is judged by a normative profile with, knob by knob, the reading it "
       "follows where the sources legitimately disagree; a deviation (an alternative that contradicts a "
       "mandatory statement) is never adopted. Findings group the traces that went wrong the same "
       "way.</small></p>\n<h2>Findings</h2>\n";
  for (const Finding& f : r.findings) {
    h += fmt::format("<div class=\"finding {}\"><p><span class=\"sev\">{}</span> <code>{}</code> {}</p>\n",
                     name(f.severity), name(f.severity), f.id, xml_escape(f.summary));
    h += fmt::format("<p><small>rule <b>{}</b> ({}): {}</small><br>{} &rArr; device <code>{}</code>; the "
                     "specification: <code>{}</code>",
                     f.rule_id, xml_escape(f.source), xml_escape(f.statement), f.op,
                     xml_escape(outcome_words(f, f.device_outcome, f.expected_outcome)),
                     xml_escape(outcome_words(f, f.expected_outcome, f.device_outcome)));
    if (!f.signature.empty()) h += fmt::format("<br>where: <code>{}</code>", xml_escape(f.signature));
    h += fmt::format("<br>shows on: {}{}</p>\n", xml_escape(join(f.devices)),
                     f.absent_on.empty() ? "" : "; absent on: " + xml_escape(join(f.absent_on)));
    std::string tr;
    for (const auto& t : f.traces) tr += fmt::format("{}{} op {}", tr.empty() ? "" : ", ", t.trace, t.op + 1);
    if (!f.kernel_same_as.empty())
      h += fmt::format("<p>{}</p>\n", xml_escape(exit_report_line(f)));
    else if (!f.kernel.empty())
      h += fmt::format("<p>the kernel reported, as {} ran:</p><pre>{}</pre>\n", xml_escape(f.kernel_trace),
                       xml_escape(f.kernel));
    h += fmt::format("<p><small>traces: {}</small></p>\n", xml_escape(tr));
    h += fmt::format("<p>reproducer ({}):</p><pre>{}</pre>\n", xml_escape(shrink_line(f)),
                     xml_escape(print_text(f.reproducer)));
    if (!f.exports.empty()) {
      h += "<p>exports:";
      // Links relative to the report, so the folder can be moved or published whole.
      for (const auto& e : f.exports) {
        const std::string rel = fs::absolute(e).lexically_proximate(fs::absolute(dir)).string();
        h += fmt::format(" <a href=\"{}\">{}</a>", xml_escape(rel), xml_escape(fs::path(e).filename().string()));
      }
      h += "</p>\n";
    }
    h += "</div>\n";
  }
  if (r.cols.size() > 1) {
    h += "<h2>Between the devices</h2>\n<ul>\n";
    for (const Finding& f : r.findings)
      if (!f.absent_on.empty())
        h += fmt::format("<li><code>{}</code> {}: on {}, not on {}</li>\n", f.id, name(f.severity),
                         xml_escape(join(f.devices)), xml_escape(join(f.absent_on)));
    for (size_t i = 0; i < r.cols.size(); ++i)
      for (size_t j = i + 1; j < r.cols.size(); ++j) {
        for (const auto& line : rule_changes(r.judged[i], r.judged[j]))
          h += fmt::format("<li>rule {} ({} vs {})</li>\n", xml_escape(line), xml_escape(r.cols[i].label),
                           xml_escape(r.cols[j].label));
        if (const std::string d = resembles_change(r.judged[i], r.judged[j]); !d.empty())
          h += fmt::format("<li>resembles most: {} ({} vs {})</li>\n", xml_escape(d), xml_escape(r.cols[i].label),
                           xml_escape(r.cols[j].label));
      }
    h += "</ul>\n";
  }
  if (r.baseline) {
    const auto& b = *r.baseline;
    h += fmt::format("<h2>Against the baseline: {} new, {} fixed, {} unchanged</h2>\n<ul>\n", b.added.size(),
                     b.fixed.size(), b.unchanged.size());
    for (const Finding* f : b.added) h += fmt::format("<li>new <code>{}</code> {}</li>\n", f->id, xml_escape(f->summary));
    for (const Stored& s : b.fixed) h += fmt::format("<li>fixed <code>{}</code> {}</li>\n", s.id, xml_escape(s.summary));
    h += "</ul>\n";
  }
  h += "<h2>Rules</h2>\n<table><tr><th>rule</th><th>source</th>";
  for (size_t c = 0; c < r.cols.size(); ++c)
    h += fmt::format("<th>{}<br><small>by {}</small></th><th title=\"the profiles and drivers' releases, as they "
                     "stand, under which no trace first diverges from the device at an op of the rule\">{}</th>",
                     xml_escape(r.cols[c].label), xml_escape(r.judged[c].yardstick.profile.name), kAgreeColumn);
  h += "</tr>\n";
  for (int k = 0; k < kRuleCount; ++k) {
    h += fmt::format("<tr><td>{}</td><td><small>{}</small></td>", rule_descs()[k].id,
                     xml_escape(rule_descs()[k].source));
    for (size_t c = 0; c < r.cols.size(); ++c) {
      const auto& row = r.judged[c].rules[k];
      const char* cls = row.checked == 0 ? "none" : row.failed ? "fail" : "ok";
      h += fmt::format("<td class=\"{}\">{}</td><td><small>{}</small></td>", cls, cell(row),
                       row.checked ? profiles_in(r.judged[c], row.agree) : "");
    }
    h += "</tr>\n";
  }
  h += "</table>\n<h2>Knob fingerprints: which reading each device follows</h2>\n<table><tr><th>knob</th><th>question</th>";
  for (const auto& c : r.cols) h += fmt::format("<th>{}</th>", xml_escape(c.label));
  h += "</tr>\n";
  for (int k = 0; k < kKnobCount; ++k) {
    h += fmt::format("<tr><td>{}</td><td><small>{}</small></td>", knob_descs()[k].name,
                     xml_escape(knob_descs()[k].question));
    for (size_t c = 0; c < r.cols.size(); ++c) {
      const KnobPrint& kp = r.judged[c].yardstick.knobs[k];
      const bool dev = kp.follows >= 0 && is_deviation(static_cast<Knob>(k), static_cast<uint8_t>(kp.follows));
      const char* cls = dev || kp.verdict == "none" ? "fail" : kp.follows >= 0 ? "ok" : "none";
      h += fmt::format("<td class=\"{}\">{}</td>", cls, xml_escape(knob_line(r.judged[c], k)));
    }
    h += "</tr>\n";
  }
  h += "</table>\n<h2>Traces</h2>\n<table><tr><th>trace</th>";
  for (const auto& c : r.cols) h += fmt::format("<th>{}</th>", xml_escape(c.label));
  h += "</tr>\n";
  for (size_t t = 0; t < r.corpus.size(); ++t) {
    h += fmt::format("<tr><td>{}</td>", xml_escape(r.corpus[t].name));
    for (size_t c = 0; c < r.cols.size(); ++c) {
      const Symptom& s = r.judged[c].symptoms[t];
      const char* cls = s.verdict == Verdict::match ? "ok" : s.verdict == Verdict::finding ? "fail"
                                                                                            : "unsupported";
      std::string what(name(s.verdict));
      if (s.verdict == Verdict::finding) what += " " + finding_id(s.key);
      if (!s.why.empty()) what += ": " + s.why;
      h += fmt::format("<td class=\"{}\"><small>{}</small></td>", cls, xml_escape(what));
    }
    h += "</tr>\n";
  }
  h += "</table>\n";
  for (const auto& c : r.cols) {
    if (!c.incident.empty()) h += fmt::format("<p>incident on {}:</p><pre>{}</pre>\n", xml_escape(c.label), xml_escape(c.incident));
  }
  h += "</body></html>\n";
  return h;
}

bool export_findings(std::vector<Finding>& fs_, const std::string& dir, std::ostream& err) {
  if (std::string why; !make_output_dir(dir, why))
    return err << fmt::format("{}:1:1: error: cannot write the exports: {}\n", dir, why), false;
  for (Finding& f : fs_) {
    if (f.severity == Severity::unsupported) continue;
    exports::Reproducer r;
    r.id = f.id;
    r.summary = f.summary;
    r.rule = f.rule_id;
    r.source = f.source;
    r.trace = f.reproducer;
    r.expected = f.expected;
    r.op = f.reproducer_op;
    r.seen = f.seen;
    std::string why;
    f.exports = exports::write_exports(r, (fs::path(dir) / f.id).string(), &why);
    if (f.exports.empty()) {
      err << fmt::format("{}:1:1: error: cannot write the exports: {}\n", (fs::path(dir) / f.id).string(), why);
      return false;
    }
  }
  std::vector<std::string> ids;
  for (const Finding& f : fs_) ids.push_back(f.id);
  remove_stale_exports(dir, ids, err);
  return true;
}

std::vector<std::string> remove_stale_exports(const std::string& dir, const std::vector<std::string>& keep,
                                              std::ostream& err) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!findings::is_finding_id(name) || std::find(keep.begin(), keep.end(), name) != keep.end()) continue;
    if (it->is_symlink(ec) || !it->is_directory(ec) || !exports::holds_only_exports(it->path().string())) continue;
    if (std::error_code e; fs::remove_all(it->path(), e) != static_cast<std::uintmax_t>(-1) && !e)
      removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  if (!removed.empty())
    err << fmt::format("{}: removed the exports of {} finding{} of an earlier run that this one does not have: {}\n",
                       dir, removed.size(), removed.size() == 1 ? "" : "s", fmt::join(removed, ", "));
  return removed;
}

}  // namespace mwc::cli
