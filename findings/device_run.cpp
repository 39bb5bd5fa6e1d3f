#include "findings/device_run.hpp"

#include <unistd.h>

#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "adapters/kernel/kernel_watch.hpp"
#include "adapters/softroce/vm.hpp"
#include "findings/json_fields.hpp"
#include "refmodel/model.hpp"
#include "refmodel/text_codec.hpp"
#include "util/progress.hpp"

namespace mwc::findings {
namespace {

Outcome outcome_from_text(const std::string& s) {
  std::string err;
  size_t at = 0;
  Outcome o;
  if (auto p = parse_pattern(s, err, at)) {
    o.ret = p->ret.value_or(Result::kOK);
    o.wc = p->wc.value_or(WcStatus::kNONE);
    o.wc_op = p->wc_op.value_or(WcOpcode::kNONE);
    o.key = p->key.value_or(kNoKey);
  }
  return o;
}

// The guest's copy of a trace is NNNNN-NAME: returns NAME.
std::string host_name(const std::string& guest) {
  const size_t dash = guest.find('-');
  return dash == 5 && guest.find_first_not_of("0123456789") == 5 ? guest.substr(6) : guest;
}

}  // namespace

DeviceColumn run_device_corpus(Backend& device, const std::vector<CorpusTrace>& corpus,
                               std::ostream* stream, std::ostream* progress) {
  DeviceColumn col;
  col.spec = device.name();
  col.label = device.name().substr(device.name().find(':') + 1);
  col.send_depths = device.granted_send_depths();
  if (stream && !col.send_depths.empty()) *stream << nlohmann::json{{"send_depths", col.send_depths}}.dump() << std::endl;
  Progress bar(progress, "traces run", corpus.size());
  // The kernel's reports, each told to its trace; in the guest, where
  // nothing else runs, also those that name no trace's child.
  KernelWatch watch(softroce::in_guest());
  const auto take = [&](const std::vector<TraceReport>& reports) {
    for (const TraceReport& r : reports) {
      DeviceTrace& t = col.traces[r.trace];
      t.kernel += r.account;
      if (stream) *stream << nlohmann::json{{"kernel", t.trace}, {"account", r.account}}.dump() << std::endl;
    }
  };
  for (size_t i = 0; i < corpus.size(); ++i) {
    bar.update(i, corpus[i].name);
    softroce::mark_trace(i, std::cerr);
    DeviceTrace dt;
    dt.trace = corpus[i].name;
    device.run(corpus[i].trace, dt.outcomes);
    dt.note = device.note();
    if (stream) {
      nlohmann::json j{{"trace", dt.trace}, {"note", dt.note}};
      for (const auto& o : dt.outcomes) j["outcomes"].push_back(to_text(o));
      // What the device was seen to do beyond the outcome's text (the
      // responder refused what the requester was told succeeded).
      for (size_t k = 0; k < dt.outcomes.size(); ++k)
        if (dt.outcomes[k].rule != Rule::observed && by_device(dt.outcomes[k].rule))
          j["seen"].push_back({{"op", k}, {"rule", rule_desc(dt.outcomes[k].rule).id}});
      *stream << j.dump() << std::endl;
    }
    col.traces.push_back(std::move(dt));
    take(watch.after_trace(i, device.last_child()));
  }
  bar.update(corpus.size());
  if (watch.reading()) take(watch.at_end(kTeardownWait, [] { softroce::mark_alive(std::cerr); }));
  softroce::mark_traces_done(std::cerr);
  return col;
}

Trace with_granted_depths(const Trace& t, const std::vector<uint32_t>& granted) {
  Trace r = t;
  for (Op& op : r.ops) {
    if (op.code != OpCode::create_qp) continue;
    args::create_qp q{op};
    const uint64_t asked = q.depth;
    if (asked < 1 || asked > granted.size()) continue;
    const uint64_t got = granted[asked - 1];
    if (got > asked && got <= static_cast<uint64_t>(kMaxDepth)) q.depth = got, op = q.to_op();
  }
  return r;
}

std::string stream_line(const Shrunk& s) {
  return nlohmann::json{{"shrunk", s.finding}, {"text", s.text},     {"ops_before", s.ops_before},
                        {"ops_after", s.ops_after}, {"runs", s.runs}, {"minimal", s.minimal},
                        {"note", s.note}}
      .dump();
}

bool read_device_stream(const std::string& text, DeviceColumn& col) {
  std::istringstream in(text);
  size_t read = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] != '{') continue;  // console noise
    // A guest that died mid-line leaves a torn last line: skip it.
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    ++read;
    if (j.contains("trace")) {
      const std::string name = host_name(text_field(j, "trace"));
      for (auto& t : col.traces) {
        if (t.trace != name) continue;
        t.outcomes.clear();
        for (const auto& o : array_field(j, "outcomes"))
          if (o.is_string()) t.outcomes.push_back(outcome_from_text(o.get<std::string>()));
        for (const auto& s : array_field(j, "seen")) {
          const uint64_t k = count_field(s, "op", UINT64_MAX);
          const auto r = rule_from_id(text_field(s, "rule"));
          if (k < t.outcomes.size() && r && by_device(*r)) t.outcomes[k].rule = *r;
        }
        t.note = text_field(j, "note");
      }
    } else if (j.contains("kernel") && j["kernel"].is_string()) {
      const std::string name = host_name(j["kernel"].get<std::string>());
      const std::string account = text_field(j, "account");
      for (auto& t : col.traces)
        if (t.trace == name) t.kernel += account;
    } else if (j.contains("send_depths") && j["send_depths"].is_array()) {
      // A depth that is no count is not known: the trace keeps the one it asked.
      col.send_depths.clear();
      for (const auto& d : j["send_depths"])
        col.send_depths.push_back(static_cast<uint32_t>(as_count(d, 0, UINT32_MAX)));
    } else if (j.contains("shrunk")) {
      Shrunk s;
      s.finding = text_field(j, "shrunk");
      s.text = text_field(j, "text");
      s.ops_before = count_field(j, "ops_before");
      s.ops_after = count_field(j, "ops_after");
      s.runs = count_field(j, "runs");
      s.minimal = flag_field(j, "minimal");
      s.note = text_field(j, "note");
      col.shrunk.push_back(std::move(s));
    }
  }
  return read > 0 || text.empty();
}

}  // namespace mwc::findings
