#include "findings/finding.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "adapters/divergence.hpp"
#include "adapters/isolate.hpp"
#include "adapters/minimize.hpp"
#include "compare/run.hpp"
#include "refmodel/rules.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::findings {
namespace {

constexpr std::string_view kSeverityNames[] = {
#define S(name, what) #name,
    MWC_SEVERITIES(S)
#undef S
};
constexpr std::string_view kSeverityMeanings[] = {
#define S(name, what) what,
    MWC_SEVERITIES(S)
#undef S
};
static_assert(std::size(kSeverityNames) == kSeverityCount);

// Returns f(the typed view of bind op `op`), or `other` when op is no bind.
template <class R, class F>
R on_bind(const Op& op, R other, F f) {
  switch (op.code) {
#define OP(name, bin, kind, summary) \
  case OpCode::name:                 \
    if constexpr (is_bind(OpCode::name)) return f(args::name{op}); \
    break;
    MWC_OPS(OP)
#undef OP
  }
  return other;
}

// Returns the length a bind op asks for.
uint64_t bind_len(const Op& op) {
  return on_bind(op, uint64_t{0}, [](const auto& b) { return uint64_t{b.len}; });
}

// Whether an outcome grants: a remote access that completed, or a bind
// with a length that took effect (a successful bind reports its key).
bool grants(const Op& op, const Outcome& o) {
  if (o.ret != Result::kOK) return false;
  if (op_desc(op.code).kind == OpKind::Remote) return o.wc == WcStatus::kIBV_WC_SUCCESS;
  if (is_bind(op.code)) return o.key != kNoKey && bind_len(op) != 0;
  return false;
}

// Returns whether an outcome says the op took effect: access granted, a
// bind made, a work request completed successfully.
bool takes_effect(const Op& op, const Outcome& o) {
  return grants(op, o) || (o.ret == Result::kOK && o.wc == WcStatus::kIBV_WC_SUCCESS);
}

bool is_errno(Result r);
// Returns whether an outcome refuses the op: an errno, an error completion,
// a bind that leaves the window's key.
bool refuses(const Op& op, const Outcome& o) {
  return is_errno(o.ret) || (o.wc != WcStatus::kNONE && o.wc != WcStatus::kIBV_WC_SUCCESS) ||
         (is_bind(op.code) && o.ret == Result::kOK && o.key == kNoKey);
}

bool is_errno(Result r) {
  switch (r) {
#define X(n) case Result::k##n:
    MWC_ERRNOS(X)
#undef X
    return true;
    default: return false;
  }
}

// Rules whose errno the sources leave open: ibv_reg_mr(3) says a
// registration fails and names no errno for memory the process does not
// own (the model's EFAULT is one reading; rxe's ib_umem_get gives EINVAL
// for a range that wraps). Any refusal conforms there.
bool errno_open(Rule r) { return r == Rule::mr_range; }

// The window a bind op names, or kNoHandle.
uint32_t bind_window(const Op& op) {
  return on_bind(op, kNoHandle, [](const auto& b) { return b.mw; });
}

// Whether an earlier bind of the window that op `at` binds was posted and
// failed (its error completion queued): ibv_bind_mw(3) NOTES tell the
// consumer to fix the window's rkey then, which a trace's consumer does
// not do, so what the device does with the next bind is not specified.
bool after_failed_bind(const Trace& t, const std::vector<Outcome>& model, size_t at) {
  const uint32_t w = bind_window(t.ops[at]);
  if (w == kNoHandle) return false;
  for (size_t i = 0; i < at; ++i)
    if (bind_window(t.ops[i]) == w && model[i].ret == Result::kOK && model[i].key == kNoKey &&
        model[i].rule != Rule::bind_ok && model[i].rule != Rule::bind_zero_length &&
        model[i].rule != Rule::handle_live && model[i].rule != Rule::post_flush)
      return true;
  return false;
}

// The QP an op acts on (its first QP field), or kNoHandle.
uint32_t qp_of(const Op& op) {
  const auto& fields = op_desc(op.code).fields;
  for (size_t f = 0; f < fields.size(); ++f)
    if (fields[f].kind == FieldKind::Qp) return op.a[f].h;
  return kNoHandle;
}

// Whether a work request was refused at post on op `at`'s QP because of the
// QP's state (before the first divergence, so the device refused it too).
// A provider that queues a request before the kernel refuses it runs it
// later anyway (ibv_post_send(3): the requests from bad_wr on are not
// posted), and the QP then leaves the path the model follows.
bool after_refused_post(const Trace& t, const std::vector<Outcome>& model, size_t at) {
  const uint32_t q = qp_of(t.ops[at]);
  if (q == kNoHandle) return false;
  for (size_t i = 0; i < at; ++i)
    if (op_desc(t.ops[i].code).kind == OpKind::Post && qp_of(t.ops[i]) == q && model[i].rule == Rule::post_state &&
        is_errno(model[i].ret))
      return true;
  return false;
}

// Whether a device reports a request that fails on its own as flushed:
// IBV_WC_WR_FLUSH_ERR is for the requests after the failing one (IBTA
// 10.8), which keeps its own error status. One root cause whatever op or
// rule the failing request met.
bool own_error_flushed(const Outcome& device, const Outcome& model) {
  return device.wc == WcStatus::kIBV_WC_WR_FLUSH_ERR && model.wc != WcStatus::kNONE &&
         model.wc != WcStatus::kIBV_WC_SUCCESS && model.wc != WcStatus::kIBV_WC_WR_FLUSH_ERR;
}

bool refused_state(const Op& op) {
  if (op.code != OpCode::modify_qp) return false;
  const auto st = static_cast<QpState>(args::modify_qp{op}.state);
  return st == QpState::kSQD || st == QpState::kSQE;
}

// Returns how long the harness waited for an op that timed out, from the
// device backend's account ("op 7 did not finish within 11000 ms: ..."),
// or 0 when it does not say (a completion waited for by --op-timeout).
uint32_t waited_ms(std::string_view note) {
  const size_t at = note.find(kDeadlinePassed);
  if (at == std::string_view::npos) return 0;
  const std::string_view rest = note.substr(at + kDeadlinePassed.size());
  uint32_t ms = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ms);
  return ec == std::errc() && std::string_view(end, rest.data() + rest.size()).starts_with(" ms") ? ms : 0;
}

// Returns the limit of mwcheck's device session an op of code c met, by
// its kind: the session's answer (UNSUPPORTED) does not say which.
std::string_view harness_limit(OpCode c) {
  switch (op_desc(c).kind) {
    case OpKind::Remote: return "an access from the peer longer than the peer's local buffer";
    case OpKind::Post: return "a send longer than its inline data";
    default:
      return "a registration of more than a quarter of the machine's memory, whose pinning would call the OOM killer";
  }
}

// The verb as rdma-core users name it, from the op table's summary:
// "ibv_post_send IBV_WR_BIND_MW", "IBV_WR_RDMA_READ from the peer".
std::string verb_of(OpCode c) {
  const OpDesc& d = op_desc(c);
  std::string_view s = d.summary;
  constexpr std::string_view kPeer = "the peer posts ";
  if (s.starts_with(kPeer)) {
    s.remove_prefix(kPeer.size());
    return std::string(s.substr(0, s.find(' '))) + " from the peer";
  }
  std::string v;
  while (!s.empty() && (s.starts_with("ibv_") || s.starts_with("IBV_") || s.starts_with("rdma_"))) {
    const size_t sp = std::min(s.find(' '), s.size());
    std::string_view word = s.substr(0, sp);
    s.remove_prefix(std::min(sp + 1, s.size()));
    const bool last = word.ends_with(':');  // "rdma_reg_read: LOCAL_WRITE|..." names one verb
    if (last) word.remove_suffix(1);
    v += (v.empty() ? "" : " ") + std::string(word);
    if (last) break;
  }
  return v.empty() ? std::string(d.name) : v;
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : s) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
  return h;
}

}  // namespace

std::string outcome_class(Outcome o) {
  const bool key = o.key != kNoKey;
  o.key = kNoKey;
  return to_text(o) + (key ? " +key" : "");
}

std::string_view name(Severity s) { return kSeverityNames[static_cast<int>(s)]; }
std::string_view meaning(Severity s) { return kSeverityMeanings[static_cast<int>(s)]; }

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::match: return "match";
    case Verdict::finding: return "finding";
    case Verdict::unsupported: return "unsupported";
    case Verdict::unknown: return "unknown";
  }
  return "?";
}

std::string finding_id(std::string_view key) {
  return fmt::format("F{:08x}", static_cast<uint32_t>(fnv1a(key) ^ (fnv1a(key) >> 32)));
}

bool is_finding_id(std::string_view s) {
  return s.size() == 9 && s[0] == 'F' &&
         std::all_of(s.begin() + 1, s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string crash_signature(std::string_view note) {
  const auto line_from = [&](size_t at) {
    const size_t nl = note.find('\n', at);
    return std::string(note.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
  };
  // A kernel oops: the function the instruction pointer was in.
  if (const size_t rip = note.find("RIP: 0010:"); rip != std::string_view::npos) {
    std::string f = line_from(rip + 10);
    f = f.substr(0, f.find_first_of("+ "));
    if (!f.empty()) return "kernel: " + f;
  }
  if (const size_t bug = note.find("BUG: "); bug != std::string_view::npos) return "kernel: " + line_from(bug);
  if (const size_t p = note.find("Kernel panic - not syncing: "); p != std::string_view::npos)
    return "kernel panic: " + line_from(p + 28);
  // The provider: the fault locator's account of the faulting code.
  if (const size_t at = note.find("fault at "); at != std::string_view::npos) {
    std::string f = line_from(at + 9);
    // The offset names the instruction; the symbol, when known, says more.
    return "user space: " + f;
  }
  if (const size_t d = note.find("died of "); d != std::string_view::npos) {
    std::string sig = line_from(d + 8);
    return "user space: " + sig.substr(0, sig.find_first_of(";\n "));
  }
  if (note.find("guest kernel") != std::string_view::npos) return "kernel: the guest died";
  return "";
}

Symptom classify(const Trace& t, const std::vector<Outcome>& device,
                 const std::vector<Outcome>& model, const std::string& note) {
  Symptom s;
  // Refusals whose errno the sources leave open agree whatever the errno.
  std::vector<Outcome> dev = device;
  auto d = first_divergence(dev, model, 0);
  while (d && is_errno(d->a.ret) && is_errno(d->b.ret) && errno_open(d->b.rule)) {
    dev[d->op] = d->b;
    d = first_divergence(dev, model, 0);
  }
  if (!d) {
    const bool ran = std::any_of(device.begin(), device.end(),
                                 [](const Outcome& o) { return o.ret != Result::kNOTRUN; });
    if (!ran && !device.empty()) {
      s.verdict = Verdict::unknown;
      s.why = "the device ran none of the trace" + (note.empty() ? std::string() : ": " + note);
    }
    return s;
  }
  s.op = d->op;
  s.device = d->a;
  s.model = d->b;
  const Op& op = t.ops[s.op];
  const std::string opname(op_desc(op.code).name);
  const std::string dc = outcome_class(s.device), mc = outcome_class(s.model);
  const std::string rule(rule_desc(s.model.rule).id);
  s.verdict = Verdict::finding;
  const Result r = s.device.ret;
  if (after_refused_post(t, model, s.op)) {
    if (op.code == OpCode::poll_cq && s.device.wc != WcStatus::kNONE && s.model.ret == Result::kEMPTY) {
      s.severity = Severity::conformance;
      s.key = std::string(kRefusedPostRuns);
      return s;
    }
    if (refused_state(op) && r == Result::kEINVAL) {
      s.verdict = Verdict::unknown;
      s.why = "a work request refused at post on this QP may still run (a finding of its own when it does): "
              "the QP may have left the state the model follows";
      return s;
    }
  }
  if (r == Result::kUNSUPPORTED || r == Result::kEOPNOTSUPP || r == Result::kENOSYS ||
      (refused_state(op) && r == Result::kEINVAL && s.model.ret == Result::kOK)) {
    s.verdict = Verdict::unsupported;
    s.severity = Severity::unsupported;
    switch (lack_of(r, op.code)) {
      case Lack::library: s.why = "libibverbs has no such verb (DET's)"; break;
      case Lack::harness:
        s.why = fmt::format("mwcheck's device session cannot express it ({}): a limit of the harness, not of the device",
                            harness_limit(op.code));
        break;
      case Lack::device:
        s.why = refused_state(op) ? "the device refuses the QP state (an optional state it does not implement)"
                                  : fmt::format("the device does not implement the verb ({})", name(r));
        break;
    }
    s.key = fmt::format("unsupported|{}|{}", opname, refused_state(op) ? op_to_text(op).substr(op_to_text(op).find("state=")) : dc);
    return s;
  }
  if (s.model.rule == Rule::post_depth && r == Result::kOK &&
      (s.model.ret == Result::kENOMEM || s.model.ret == Result::kENOSPC)) {
    // ibv_create_qp may give more than the trace's depth (cap.max_send_wr),
    // and a provider may free a slot when its work request completes rather
    // than when it is polled: refusing beyond the depth is allowed, never
    // required. What follows depends on the device's true queue.
    s.verdict = Verdict::unknown;
    s.why = "the device accepted a work request beyond the trace's send queue depth, which "
            "nothing obliges it to refuse; the model cannot follow its queue from there";
    return s;
  }
  if (s.model.rule == Rule::mr_range && s.model.ret == Result::kEFAULT && r == Result::kOK) {
    // The model owns memory by the trace's buffers, the kernel by pages: a
    // range past a buffer's end but inside its last page is the process's.
    s.verdict = Verdict::unknown;
    s.why = "the range leaves the trace's buffer, but the kernel pins whole pages and the "
            "process may own the rest of the page: the model cannot tell";
    return s;
  }
  if (is_bind(op.code) && s.model.key != kNoKey && s.device.key == kNoKey && r != Result::kCRASH &&
      r != Result::kTIMEOUT && after_failed_bind(t, model, s.op)) {
    s.verdict = Verdict::unknown;
    s.why = "an earlier bind of this window failed and the trace's consumer did not fix the "
            "window's rkey, as ibv_bind_mw(3) NOTES ask: the next bind is not specified";
    return s;
  }
  if (r == Result::kCRASH) {
    s.severity = Severity::crash;
    s.signature = crash_signature(note);
    // Located (a kernel function, or code and offset): the same crash
    // whichever op reached it; else at least the op it crashed in.
    const bool located = s.signature.find('+') != std::string::npos || s.signature.starts_with("kernel:");
    s.key = located ? "crash|" + s.signature : fmt::format("crash|{}|{}", opname, s.signature);
    return s;
  }
  if (r == Result::kTIMEOUT) {
    s.severity = Severity::hang;
    s.waited_ms = waited_ms(note);
    s.key = fmt::format("hang|{}|{}|{}", rule, opname, mc);
    return s;
  }
  const bool security = r == Result::kCORRUPT || (grants(op, s.device) && !grants(op, s.model));
  s.severity = security ? Severity::security : Severity::conformance;
  // A check the device lets through is one bug on every path that reaches
  // it (rxe's rxe_invalidate_mw serves LOCAL_INV and SEND_WITH_INV alike):
  // one finding per rule, as severe as its worst path.
  const bool lets_through = takes_effect(op, s.device) && refuses(op, s.model);
  // The responder refused it and the requester was told otherwise: one bug
  // (no NAK) whichever check refused, not one per rule.
  const bool acked_refusal = lets_through && s.device.rule == Rule::responder_refused;
  s.key = own_error_flushed(s.device, s.model) ? "conformance|own error flushed"
          : acked_refusal                     ? fmt::format("acked refusal|{}", opname)
          : lets_through                      ? fmt::format("allows|{}", rule)
                                              : fmt::format("{}|{}|{}|{}|{}", name(s.severity), rule, opname, dc, mc);
  return s;
}

bool grants_nothing_refused(const Trace& t, const Symptom& s, const Profile& y) {
  if (s.verdict != Verdict::finding || s.op >= t.ops.size() || s.model.rule != Rule::bind_mw_access ||
      !grants(t.ops[s.op], s.device))
    return false;
  Trace u = t;  // up to the bind, with only a window's flags
  u.ops.resize(s.op + 1);
  u.expects.clear(), u.comments.clear(), u.lines.clear();
  Op& op = u.ops[s.op];
  op = on_bind(op, op, [](auto b) {
    b.access &= rules::kWindowFlags;
    return b.to_op();
  });
  const bool rights = on_bind(op, false, [](const auto& b) { return (b.access & ~uint32_t{acc::ZERO_BASED}) != 0; });
  return !rights || grants(op, run_model(u, y)[s.op]);
}

namespace {

// Two bind outcomes that differ only in the window's key byte, in words:
// a key that moves means the bind took effect, one that stays means the
// device (or the specification) refused it.
std::string key_difference(const Outcome& device, const Outcome& model) {
  const auto key = [](const Outcome& o) { return fmt::format("key={:+d}", o.key); };
  if (model.key == kNoKey)
    return fmt::format("the bind takes effect on the device ({}) where the specification refuses it "
                       "(the window keeps its key)",
                       key(device));
  if (device.key == kNoKey)
    return fmt::format("the bind does not take effect on the device (the window keeps its key) where the "
                       "specification binds it ({})",
                       key(model));
  return fmt::format("the window's key byte becomes {} on the device where the specification gives {}", key(device),
                     key(model));
}

}  // namespace

std::string summarize(const Symptom& s, std::string_view op_name) {
  const int c = op_from_name(op_name);
  const std::string verb = c < kOpCount ? verb_of(static_cast<OpCode>(c)) : std::string(op_name);
  const RuleDesc& rd = rule_desc(s.model.rule);
  switch (s.severity) {
    case Severity::crash: {
      // The signature is "kernel: WHERE", "user space: WHERE", or empty
      // when the device's account named no cause.
      const size_t colon = s.signature.find(": ");
      const std::string where = colon == std::string::npos ? s.signature : s.signature.substr(colon + 2);
      return fmt::format("{} crashes the {}{}", verb, s.signature.starts_with("kernel") ? "kernel" : "process",
                         where.empty() ? "" : " (" + where + ")");
    }
    case Severity::hang: {
      // What the harness saw is a limit passed, not "never": a call may
      // return long after it (rxe's ibv_destroy_qp of a QP with a bound
      // type 2 window returns after about 50 s in the VM).
      const std::string within =
          s.waited_ms ? fmt::format("within {:g} s", s.waited_ms / 1000.0) : "within the op timeout";
      if (op_name == "poll_cq" && s.model.wc_op != WcOpcode::kNONE)
        return fmt::format("the {} completion does not arrive {}: ibv_poll_cq finds none where the "
                           "specification gives {} ({})",
                           name(s.model.wc_op), within, to_text(s.model), rd.statement);
      return fmt::format("{} does not return or complete {}, when the harness stops waiting; the specification "
                         "says {} ({})",
                         verb, within, to_text(s.model), rd.statement);
    }
    case Severity::unsupported: return fmt::format("{}: {}", verb, s.why);
    default: break;
  }
  if (s.key == kRefusedPostRuns)
    return fmt::format("a work request ibv_post_send refused (the QP was not ready to send) runs later anyway: "
                       "a completion appears where the specification has none (ibv_post_send(3): the requests "
                       "from bad_wr on are not posted)");
  if (s.key.starts_with("acked refusal|"))
    return fmt::format("{}: the responder refuses it (its own receive completion is an error) yet the requester "
                       "gets {} where the specification gives {} (a refused request is NAKed, IBTA 9.7.5.2; here {})",
                       verb, to_text(s.device), to_text(s.model), rd.statement);
  if (own_error_flushed(s.device, s.model))
    return fmt::format("a work request that fails completes with IBV_WC_WR_FLUSH_ERR, the status of "
                       "the requests after a failure, instead of its own error: here {} ({})",
                       to_text(s.model), rd.statement);
  if (op_name == "poll_cq" && s.model.wc_op != WcOpcode::kNONE)
    return fmt::format("the {} completion has status {} where the specification gives {} ({})",
                       name(s.model.wc_op), to_text(s.device), to_text(s.model), rd.statement);
  if (s.device.ret == s.model.ret && s.device.wc == s.model.wc && s.device.key != s.model.key)
    return fmt::format("{}: {} ({})", verb, key_difference(s.device, s.model), rd.statement);
  return fmt::format("{} {}: the device gives {} where the specification gives {} ({})", verb,
                     s.severity == Severity::security ? "grants what the specification refuses"
                                                      : "departs from the specification",
                     to_text(s.device), to_text(s.model), rd.statement);
}

Lack lack_of(Result r, OpCode c) {
  if (r != Result::kUNSUPPORTED) return Lack::device;
  return c == OpCode::det_bind ? Lack::library : Lack::harness;
}

// Returns the code of the op where finding f shows in its reproducer (buf
// where it has none).
OpCode finding_op(const Finding& f) {
  const auto& ops = f.reproducer.ops;
  return f.reproducer_op < ops.size() ? ops[f.reproducer_op].code : OpCode::buf;
}

Lack lack_of(const Finding& f) { return lack_of(f.seen.ret, finding_op(f)); }

std::string outcome_words(const Finding& f, std::string_view outcome, std::string_view other) {
  return outcome_words(finding_op(f), outcome, other);
}

std::vector<Finding> group(const std::vector<CorpusTrace>& corpus, const std::vector<Symptom>& symptoms,
                           const std::string& device_label, const std::string& yardstick) {
  std::map<std::string, Finding> by_key;
  for (size_t i = 0; i < symptoms.size() && i < corpus.size(); ++i) {
    const Symptom& s = symptoms[i];
    if (s.verdict != Verdict::finding && s.verdict != Verdict::unsupported) continue;
    const Trace& t = corpus[i].trace;
    Finding& f = by_key[s.key];
    const bool first = f.key.empty();
    f.traces.push_back({corpus[i].name, s.op});
    // The most severe path, then the shortest trace that reaches it, up to
    // the op where it shows.
    if (!first && (s.severity > f.severity ||
                   (s.severity == f.severity && s.op + 1 >= f.reproducer.ops.size())))
      continue;
    const std::string opname(op_desc(t.ops[s.op].code).name);
    const RuleDesc& rd = rule_desc(s.model.rule);
    f.id = finding_id(s.key);
    f.key = s.key;
    f.severity = s.severity;
    f.summary = summarize(s, opname);
    f.rule_id = rd.id;
    f.source = rd.source;
    f.statement = rd.statement;
    f.op = opname;
    f.device_outcome = to_text(s.device);
    f.expected_outcome = to_text(s.model);
    f.signature = s.signature;
    f.yardstick = yardstick;
    f.devices = {device_label};
    std::vector<uint32_t> keep(s.op + 1);
    for (uint32_t k = 0; k <= s.op; ++k) keep[k] = k;
    f.reproducer = keep_ops(t, keep);
    f.reproducer.expects.clear();  // the trace's expectations are the corpus's, not the finding's
    f.reproducer_op = s.op;
    f.ops_before = t.ops.size();
    f.seen = s.device;
  }
  std::vector<Finding> r;
  for (auto& [k, f] : by_key) r.push_back(std::move(f));
  std::stable_sort(r.begin(), r.end(), [](const Finding& a, const Finding& b) {
    return a.severity != b.severity ? a.severity < b.severity : a.id < b.id;
  });
  return r;
}

std::vector<Finding> merge(const std::vector<std::vector<Finding>>& per_device,
                           const std::vector<std::string>& labels) {
  std::vector<Finding> r;
  for (const auto& list : per_device)
    for (const Finding& f : list) {
      auto it = std::find_if(r.begin(), r.end(), [&](const Finding& g) { return g.id == f.id; });
      if (it == r.end()) {
        r.push_back(f);
        continue;
      }
      for (const auto& d : f.devices)
        if (std::find(it->devices.begin(), it->devices.end(), d) == it->devices.end()) it->devices.push_back(d);
      // The shorter reproducer wins; what a kernel reported (and as which
      // trace ran) is kept from either.
      const Finding& told = it->kernel.empty() ? f : *it;
      std::string kernel = told.kernel, kernel_trace = told.kernel_trace, same_as = told.kernel_same_as;
      if (f.reproducer.ops.size() < it->reproducer.ops.size()) {
        auto devices = it->devices;
        *it = f;
        it->devices = std::move(devices);
      }
      it->kernel = std::move(kernel), it->kernel_trace = std::move(kernel_trace);
      it->kernel_same_as = std::move(same_as);
    }
  for (Finding& f : r)
    for (const auto& l : labels)
      if (std::find(f.devices.begin(), f.devices.end(), l) == f.devices.end()) f.absent_on.push_back(l);
  std::stable_sort(r.begin(), r.end(), [](const Finding& a, const Finding& b) {
    return a.severity != b.severity ? a.severity < b.severity : a.id < b.id;
  });
  return r;
}

std::array<size_t, kSeverityCount> count(const std::vector<Finding>& f) {
  std::array<size_t, kSeverityCount> n{};
  for (const auto& x : f) ++n[static_cast<int>(x.severity)];
  return n;
}

}  // namespace mwc::findings
