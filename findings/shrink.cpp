#include "findings/shrink.hpp"

#include <fmt/format.h>

#include "adapters/minimize.hpp"
#include "compare/run.hpp"
#include "adapters/softroce/vm.hpp"
#include "findings/finding.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::findings {
namespace {

// The parts of a finding's key: severity|rule|op|device class|model class,
// crash|signature or crash|op|signature, hang|rule|op|model class,
// unsupported|op|what.
std::vector<std::string> split(const std::string& key) {
  std::vector<std::string> p;
  size_t at = 0;
  for (size_t bar; (bar = key.find('|', at)) != std::string::npos; at = bar + 1)
    p.push_back(key.substr(at, bar - at));
  p.push_back(key.substr(at));
  return p;
}

// The objects an op names: (kind, handle) of its handle fields and of the
// bases of its addresses and rkeys.
std::vector<std::pair<HandleKind, uint32_t>> names(const Op& op) {
  std::vector<std::pair<HandleKind, uint32_t>> r;
  const auto& fields = op_desc(op.code).fields;
  for (size_t f = 0; f < fields.size(); ++f) {
    const Arg& a = op.a[f];
    if (a.h == kNoHandle) continue;
    if (is_handle(fields[f].kind)) r.emplace_back(handle_kind(fields[f].kind), a.h);
    if (fields[f].kind == FieldKind::Addr && a.tag != static_cast<uint8_t>(AddrBase::Raw))
      r.emplace_back(a.tag == static_cast<uint8_t>(AddrBase::Buf)  ? HandleKind::Buf
                     : a.tag == static_cast<uint8_t>(AddrBase::Mr) ? HandleKind::Mr
                                                                    : HandleKind::Mw,
                     a.h);
    if (fields[f].kind == FieldKind::Rkey && a.tag != static_cast<uint8_t>(RkeyBase::Raw))
      r.emplace_back(a.tag == static_cast<uint8_t>(RkeyBase::Mr) ? HandleKind::Mr : HandleKind::Mw, a.h);
  }
  return r;
}

// Returns the FNV-1a hash of t's text from offset basis `basis`.
uint64_t text_hash(const Trace& t, uint64_t basis) {
  uint64_t h = basis;
  for (const char c : print_text(t)) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

std::vector<uint32_t> creation_slice(const Trace& t, size_t op) {
  std::vector<bool> keep(t.ops.size(), false);
  if (op >= t.ops.size()) return {};
  keep[op] = true;
  std::vector<std::pair<HandleKind, uint32_t>> todo = names(t.ops[op]), done;
  while (!todo.empty()) {
    const auto want = todo.back();
    todo.pop_back();
    if (std::find(done.begin(), done.end(), want) != done.end()) continue;
    done.push_back(want);
    // An object is made by the first op that names it in its first field.
    for (size_t i = 0; i < op; ++i) {
      const auto& fields = op_desc(t.ops[i].code).fields;
      if (fields.empty() || !is_handle(fields[0].kind) || handle_kind(fields[0].kind) != want.first ||
          t.ops[i].a[0].h != want.second)
        continue;
      if (!keep[i]) {
        keep[i] = true;
        for (const auto& n : names(t.ops[i])) todo.push_back(n);
      }
      break;
    }
  }
  std::vector<uint32_t> r;
  for (uint32_t i = 0; i < keep.size(); ++i)
    if (keep[i]) r.push_back(i);
  return r;
}

bool shows(const Trace& t, const std::vector<Outcome>& device, const std::string& note,
           const Profile& y, const std::string& key) {
  return classify(t, device, run_model(t, y), note).key == key;
}

bool could_show(const Trace& t, const Profile& y, const std::string& key) {
  const auto p = split(key);
  std::string rule, op, mclass;
  if (p[0] == "crash") {
    if (p.size() == 3) op = p[1];  // not located: at least the op it crashed in
  } else if (p[0] == "hang" && p.size() == 4) {
    rule = p[1], op = p[2], mclass = p[3];
  } else if (p[0] == "unsupported" && p.size() == 3) {
    op = p[1];
  } else if (p.size() == 2) {
    return true;  // a key of its own (an error reported as flushed): any op may show it
  } else if (p.size() == 5) {
    rule = p[1], op = p[2], mclass = p[4];
  }
  if (op.empty()) return true;
  const auto m = rule.empty() ? std::vector<Outcome>() : run_model(t, y);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (op_desc(t.ops[i].code).name != op) continue;
    if (rule.empty()) return true;
    if (rule_desc(m[i].rule).id == rule && outcome_class(m[i]) == mclass) return true;
  }
  return false;
}

uint32_t consulted_knobs(const Trace& t, const Profile& y) {
  uint32_t k = 0;
  for (const Outcome& o : run_model(t, y)) k |= o.knobs;
  return k;
}

uint64_t candidate_hash(const Trace& t) { return text_hash(t, 1469598103934665603ull); }

// Another basis ("mwcheck2"): never a candidate's hash but by a 64-bit
// accident.
uint64_t confirmation_hash(const Trace& t) { return text_hash(t, 0x6d77636865636b32ull); }

Shrunk shrink_finding(Backend& device, const Trace& start, const Profile& y, const std::string& key,
                      std::chrono::steady_clock::time_point until,
                      const std::map<uint64_t, bool>& known, std::ostream* marks,
                      std::map<uint64_t, bool>* learned) {
  Shrunk s;
  s.finding = finding_id(key);
  s.ops_before = start.ops.size();
  std::map<uint64_t, bool> seen = known;  // every answer, so no candidate runs twice
  bool timed_out = false;
  // Runs candidate c on the device, remembered under hash h; returns whether
  // it shows the finding.
  const auto run = [&](const Trace& c, uint64_t h) {
    if (std::chrono::steady_clock::now() >= until) return timed_out = true, false;
    if (marks) softroce::mark_candidate(h, *marks);
    std::vector<Outcome> dev;
    device.run(c, dev);
    ++s.runs;
    return seen[h] = shows(c, dev, device.note(), y, key);
  };
  const uint32_t leans_on = consulted_knobs(start, y);
  const auto still = [&](const Trace& c) {
    const uint64_t h = candidate_hash(c);
    if (auto it = seen.find(h); it != seen.end()) return it->second;
    if (!could_show(c, y, key) || (consulted_knobs(c, y) & ~leans_on)) return seen[h] = false;
    return run(c, h);
  };
  Trace best = start;
  best.comments.clear();
  // First the ops that make what the finding's op names, nothing else: when
  // that shows it, one run saves the one-at-a-time removal of every other
  // op (for a kernel crash, a boot each).
  const auto said = seen.find(candidate_hash(best));
  if (!best.ops.empty() && (said == seen.end() || said->second)) {
    const Trace slice = keep_ops(best, creation_slice(best, best.ops.size() - 1));
    if (slice.ops.size() < best.ops.size() && still(slice)) best = slice;
  }
  // minimize() ends after one pass of single-op removal and one of field
  // simplification; either may open the way for the other, so it runs
  // until it changes nothing (answers are remembered: a pass over a
  // minimal trace runs nothing twice).
  for (int round = 0; round < 8; ++round) {
    Trace next = minimize(best, still, 100000);
    next.comments.clear();
    const bool same = next == best;
    best = std::move(next);
    if (same) break;
  }
  const bool shown = !timed_out && still(best);
  // Shown, the reproducer runs once more and must show again: a finding
  // that depends on timing could otherwise hand a maintainer a reproducer
  // that shows nothing. The run has its own hash, so that a second kernel
  // crash is an answer the next boot knows.
  bool again = false;
  if (shown) {
    const uint64_t h = confirmation_hash(best);
    const auto it = seen.find(h);
    again = it != seen.end() ? it->second : run(best, h);
  }
  s.minimal = again && !timed_out;
  if (timed_out) s.note = std::string(kOutOfTime) + " before the reproducer was shown 1-minimal";
  else if (!shown) s.note = "the finding did not show again on the device";
  else if (!again) s.note = std::string(kShownOnce);
  s.ops_after = best.ops.size();
  s.text = print_text(best);
  if (learned) *learned = std::move(seen);
  return s;
}

void shrink_findings(Backend& device, const std::vector<Trace>& starts, const Profile& y,
                     const std::vector<std::string>& keys, std::chrono::steady_clock::time_point until,
                     const std::map<uint64_t, bool>& known, std::ostream* marks,
                     const std::function<void(size_t, const Shrunk&)>& done) {
  using Clock = std::chrono::steady_clock;
  const size_t n = std::min(starts.size(), keys.size());
  std::vector<size_t> order, kernel;
  for (size_t i = 0; i < n; ++i) (keys[i].starts_with("crash|kernel") ? kernel : order).push_back(i);
  const auto reserve = (until - Clock::now()) * static_cast<long>(kernel.size()) / static_cast<long>(std::max<size_t>(n, 1));
  // Answers are a finding's own: a candidate may show one and not another.
  std::vector<std::map<uint64_t, bool>> answers(n, known);
  std::vector<Shrunk> first(n);
  const auto one = [&](size_t i, const Trace& from, Clock::time_point by) {
    if (marks) softroce::mark_trace(i, *marks);
    return shrink_finding(device, from, y, keys[i], by, answers[i], marks, &answers[i]);
  };
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    const auto by = Clock::now() + (until - reserve - Clock::now()) / static_cast<long>(order.size() - k);
    first[i] = one(i, starts[i], by);
    done(i, first[i]);
  }
  // A second pass for those the first left short in time.
  std::vector<size_t> again;
  for (const size_t i : order)
    if (!first[i].minimal && out_of_time(first[i].note)) again.push_back(i);
  for (size_t k = 0; k < again.size() && Clock::now() < until - reserve; ++k) {
    const size_t i = again[k];
    const auto parsed = parse_text(first[i].text);
    if (!std::holds_alternative<Trace>(parsed)) continue;
    const auto by = Clock::now() + (until - reserve - Clock::now()) / static_cast<long>(again.size() - k);
    Shrunk s = one(i, std::get<Trace>(parsed), by);
    s.runs += first[i].runs;
    s.ops_before = first[i].ops_before;
    done(i, s);
  }
  for (size_t k = 0; k < kernel.size(); ++k) {
    const size_t i = kernel[k];
    done(i, one(i, starts[i], Clock::now() + (until - Clock::now()) / static_cast<long>(kernel.size() - k)));
  }
  if (marks) softroce::mark_traces_done(*marks);
}

}  // namespace mwc::findings
