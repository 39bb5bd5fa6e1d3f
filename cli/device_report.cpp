#include "cli/device_report.hpp"

#include <fstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace {

std::string_view pname(ProfileId p) { return profile_descs()[static_cast<int>(p)].name; }

std::string profiles_in(uint8_t bits) {
  std::string s;
  for (int p = 0; p < kProfileCount; ++p)
    if ((bits >> p) & 1) s += (s.empty() ? "" : " ") + std::string(pname(static_cast<ProfileId>(p)));
  return s.empty() ? "none" : s;
}

std::string cell(const RuleRow& r) {
  if (r.checked == 0) return "-";
  if (r.failed == 0) return fmt::format("ok {}", r.checked);
  return fmt::format("FAIL {}/{}", r.failed, r.checked);
}

std::string escape(std::string_view s) {
  std::string o;
  for (const char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// One line on a divergent trace: where, what the device did, what the
// model under the closest profile does, and the rule.
std::string divergence_line(const CorpusTrace& c, const DeviceAnalysis& a, size_t t) {
  const auto& f = *a.traces[t].first;
  const RuleDesc& rd = rule_desc(f.model.rule);
  return fmt::format("{} op {}: {} => device {}, {} {} (rule {}, {})", c.name, f.op + 1,
                     op_to_text(c.trace.ops[f.op]), to_text(f.device), pname(a.closest),
                     to_text(f.model), rd.id, rd.source);
}

// Returns the traces (by index) whose device outcomes differ between two columns.
std::vector<size_t> differing(const DeviceColumn& a, const DeviceColumn& b) {
  std::vector<size_t> d;
  for (size_t t = 0; t < a.traces.size() && t < b.traces.size(); ++t)
    if (a.traces[t].outcomes != b.traces[t].outcomes) d.push_back(t);
  return d;
}

}  // namespace

void print_device_report(const Columns& cols, const Analyses& an,
                         const std::vector<CorpusTrace>& corpus, std::ostream& out) {
  for (size_t c = 0; c < cols.size(); ++c) {
    const DeviceColumn& col = cols[c];
    const DeviceAnalysis& a = an[c];
    out << fmt::format("\n== {} ({}) ==\n", col.label, col.spec);
    std::string m;
    for (int p = 0; p < kProfileCount; ++p)
      m += fmt::format("{}{} {}", m.empty() ? "" : ", ", pname(static_cast<ProfileId>(p)), a.matched[p]);
    out << fmt::format("closest profile: {} (traces matching each profile of {}: {})\n\n",
                       pname(a.closest), corpus.size(), m);
    size_t rw = 4;
    for (const auto& rd : rule_descs()) rw = std::max(rw, rd.id.size());
    out << fmt::format("{:<{}}  {:<10}  {:<28}  {}\n", "rule", rw, "device", "agrees with", "source");
    for (int r = 0; r < kRuleCount; ++r) {
      if (a.rules[r].checked == 0) continue;
      out << fmt::format("{:<{}}  {:<10}  {:<28}  {}\n", rule_descs()[r].id, rw, cell(a.rules[r]),
                         profiles_in(a.rules[r].agree), rule_descs()[r].source);
    }
    out << "\nknob fingerprint (alternatives tried on the closest profile):\n";
    for (int k = 0; k < kKnobCount; ++k)
      out << fmt::format("  {:<18} {}\n", knob_descs()[k].name, a.knobs[k].verdict);
    size_t counts[5] = {};
    for (const auto& t : a.traces) ++counts[static_cast<int>(t.verdict)];
    out << fmt::format("\ntraces: {} match, {} diverge, {} unsupported, {} crash, {} timeout\n",
                       counts[0], counts[1], counts[2], counts[3], counts[4]);
    for (size_t t = 0; t < a.traces.size(); ++t) {
      if (!a.traces[t].first) continue;
      out << fmt::format("{}: {}\n", verdict_name(a.traces[t].verdict), divergence_line(corpus[t], a, t));
      if (!col.traces[t].note.empty()) out << fmt::format("  note: {}\n", col.traces[t].note);
      if (!col.traces[t].reproducer.empty()) {
        out << "  reproducer:\n";
        std::string line;
        for (const char ch : col.traces[t].reproducer) {
          if (ch != '\n') {
            line += ch;
            continue;
          }
          out << "    " << line << "\n";
          line.clear();
        }
      }
    }
    if (!col.incident.empty()) out << fmt::format("incident: {}\n", col.incident);
    if (!col.timing.empty()) out << fmt::format("timing: {}\n", col.timing);
  }
  for (size_t i = 0; i < cols.size(); ++i)
    for (size_t j = i + 1; j < cols.size(); ++j) {
      const auto d = differing(cols[i], cols[j]);
      out << fmt::format("\n{} vs {}: {} trace{} differ\n", cols[i].label, cols[j].label, d.size(),
                         d.size() == 1 ? "" : "s");
      for (size_t t : d) {
        size_t op = 0;
        const auto& x = cols[i].traces[t].outcomes;
        const auto& y = cols[j].traces[t].outcomes;
        while (op < x.size() && op < y.size() && x[op] == y[op]) ++op;
        if (op >= x.size() || op >= y.size()) continue;
        out << fmt::format("  {} op {}: {} => {} vs {}\n", corpus[t].name, op + 1,
                           op_to_text(corpus[t].trace.ops[op]), to_text(x[op]), to_text(y[op]));
      }
      for (int r = 0; r < kRuleCount; ++r)
        if (cell(an[i].rules[r]) != cell(an[j].rules[r]))
          out << fmt::format("  rule {}: {} vs {}\n", rule_descs()[r].id, cell(an[i].rules[r]),
                             cell(an[j].rules[r]));
    }
}

bool write_device_json(const Columns& cols, const Analyses& an,
                       const std::vector<CorpusTrace>& corpus, const std::string& path) {
  nlohmann::ordered_json j;
  for (size_t c = 0; c < cols.size(); ++c) {
    const auto& a = an[c];
    nlohmann::ordered_json d{{"device", cols[c].spec}, {"label", cols[c].label},
                             {"closest_profile", pname(a.closest)}, {"timing", cols[c].timing},
                             {"incident", cols[c].incident}};
    for (int p = 0; p < kProfileCount; ++p)
      d["profiles_matched"][std::string(pname(static_cast<ProfileId>(p)))] = a.matched[p];
    for (int r = 0; r < kRuleCount; ++r) {
      const auto& rd = rule_descs()[r];
      d["rules"].push_back({{"id", rd.id}, {"source", rd.source}, {"checked", a.rules[r].checked},
                            {"failed", a.rules[r].failed}, {"agrees_with", profiles_in(a.rules[r].agree)}});
    }
    for (int k = 0; k < kKnobCount; ++k) {
      nlohmann::ordered_json jk{{"knob", knob_descs()[k].name}, {"verdict", a.knobs[k].verdict},
                                {"telling_traces", a.knobs[k].telling}};
      for (size_t alt = 0; alt < a.knobs[k].matches.size(); ++alt)
        jk["matches"][std::string(knob_descs()[k].alts[alt].name)] = a.knobs[k].matches[alt];
      d["knobs"].push_back(jk);
    }
    for (size_t t = 0; t < corpus.size(); ++t) {
      nlohmann::ordered_json jt{{"trace", corpus[t].name},
                                {"verdict", verdict_name(a.traces[t].verdict)}};
      for (const auto& o : cols[c].traces[t].outcomes) jt["outcomes"].push_back(to_text(o));
      if (const auto& f = a.traces[t].first) {
        jt["first_divergence"] = {{"op", f->op + 1}, {"text", op_to_text(corpus[t].trace.ops[f->op])},
                                  {"device", to_text(f->device)}, {"model", to_text(f->model)},
                                  {"rule", rule_desc(f->model.rule).id}};
      }
      if (!cols[c].traces[t].note.empty()) jt["note"] = cols[c].traces[t].note;
      if (!cols[c].traces[t].reproducer.empty()) jt["reproducer"] = cols[c].traces[t].reproducer;
      d["traces"].push_back(jt);
    }
    j["devices"].push_back(d);
  }
  std::ofstream out(path, std::ios::trunc);
  out << j.dump(2) << "\n";
  return static_cast<bool>(out);
}

bool write_device_junit(const Columns& cols, const Analyses& an,
                        const std::vector<CorpusTrace>& corpus, const std::string& path) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mwcheck conform --device\">\n";
  for (size_t c = 0; c < cols.size(); ++c) {
    size_t failures = 0, skipped = 0;
    for (const auto& t : an[c].traces) {
      failures += t.first.has_value();
      skipped += t.verdict == TraceVerdict::unsupported;
    }
    x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     escape(cols[c].label), corpus.size(), failures, skipped);
    for (size_t t = 0; t < corpus.size(); ++t) {
      x += fmt::format("    <testcase classname=\"conformance.{}\" name=\"{}\"", escape(cols[c].label),
                       escape(corpus[t].name));
      const auto& ta = an[c].traces[t];
      if (ta.verdict == TraceVerdict::unsupported) {
        x += "><skipped message=\"an op is unsupported by the device\"/></testcase>\n";
      } else if (!ta.first) {
        x += "/>\n";
      } else {
        x += fmt::format("><failure message=\"{}\">{}\n{}\n{}</failure></testcase>\n",
                         verdict_name(ta.verdict), escape(divergence_line(corpus[t], an[c], t)),
                         escape(cols[c].traces[t].note), escape(cols[c].traces[t].reproducer));
      }
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  std::ofstream out(path, std::ios::trunc);
  out << x;
  return static_cast<bool>(out);
}

bool write_device_html(const Columns& cols, const Analyses& an,
                       const std::vector<CorpusTrace>& corpus, const std::string& path) {
  std::string h = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mwcheck conform --device</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#eee}.ok{background:#c8efc8}.fail{background:#f6b8b8}.none{background:#eee;color:#888}
.unsupported{background:#fde9a8}pre{background:#f7f7f7;padding:.6em;overflow-x:auto}
small{color:#666}
</style></head><body>
<h1>mwcheck conform: devices against the reference model</h1>
)";
  h += "<p>Each device column compares the device with the model under the profile it matches best "
       "(named in the header). A rule fails when the device's outcome differs at an op that rule "
       "decides in the model.</p>\n";
  h += "<h2>Rules</h2>\n<table><tr><th>rule</th><th>source</th>";
  for (size_t c = 0; c < cols.size(); ++c)
    h += fmt::format("<th>{}<br><small>vs {}</small></th><th>agrees with</th>", escape(cols[c].label),
                     pname(an[c].closest));
  h += "</tr>\n";
  for (int r = 0; r < kRuleCount; ++r) {
    h += fmt::format("<tr><td>{}</td><td><small>{}</small></td>", rule_descs()[r].id,
                     escape(rule_descs()[r].source));
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto& row = an[c].rules[r];
      const char* cls = row.checked == 0 ? "none" : row.failed ? "fail" : "ok";
      h += fmt::format("<td class=\"{}\">{}</td><td><small>{}</small></td>", cls, cell(row),
                       row.checked ? profiles_in(row.agree) : "");
    }
    h += "</tr>\n";
  }
  h += "</table>\n<h2>Knob fingerprints</h2>\n<table><tr><th>knob</th><th>question</th>";
  for (const auto& c : cols) h += fmt::format("<th>{}</th>", escape(c.label));
  h += "</tr>\n";
  for (int k = 0; k < kKnobCount; ++k) {
    h += fmt::format("<tr><td>{}</td><td><small>{}</small></td>", knob_descs()[k].name,
                     escape(knob_descs()[k].question));
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto& v = an[c].knobs[k].verdict;
      const char* cls = v.starts_with("like") ? "ok" : v == "none" ? "fail" : "none";
      h += fmt::format("<td class=\"{}\">{}</td>", cls, escape(v));
    }
    h += "</tr>\n";
  }
  h += "</table>\n<h2>Traces</h2>\n<table><tr><th>trace</th>";
  for (const auto& c : cols) h += fmt::format("<th>{}</th>", escape(c.label));
  h += "</tr>\n";
  for (size_t t = 0; t < corpus.size(); ++t) {
    h += fmt::format("<tr><td>{}</td>", escape(corpus[t].name));
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto v = an[c].traces[t].verdict;
      const char* cls = v == TraceVerdict::match ? "ok" : v == TraceVerdict::unsupported ? "unsupported" : "fail";
      h += fmt::format("<td class=\"{}\">{}</td>", cls, verdict_name(v));
    }
    h += "</tr>\n";
  }
  h += "</table>\n<h2>Divergences</h2>\n";
  for (size_t c = 0; c < cols.size(); ++c) {
    h += fmt::format("<h3>{}</h3>\n", escape(cols[c].label));
    for (size_t t = 0; t < corpus.size(); ++t) {
      if (!an[c].traces[t].first) continue;
      h += fmt::format("<p><b>{}</b>: {}</p>\n", verdict_name(an[c].traces[t].verdict),
                       escape(divergence_line(corpus[t], an[c], t)));
      if (!cols[c].traces[t].note.empty()) h += fmt::format("<pre>{}</pre>\n", escape(cols[c].traces[t].note));
      if (!cols[c].traces[t].reproducer.empty())
        h += fmt::format("<p>minimized reproducer:</p><pre>{}</pre>\n", escape(cols[c].traces[t].reproducer));
    }
    if (!cols[c].incident.empty()) h += fmt::format("<p>incident:</p><pre>{}</pre>\n", escape(cols[c].incident));
    if (!cols[c].timing.empty()) h += fmt::format("<p><small>timing: {}</small></p>\n", escape(cols[c].timing));
  }
  h += "</body></html>\n";
  std::ofstream out(path, std::ios::trunc);
  out << h;
  return static_cast<bool>(out);
}

}  // namespace mwc::cli
