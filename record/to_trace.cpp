#include "record/to_trace.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <infiniband/verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::record {
namespace {

// Sets field `field` of `op`, named as the op table names it, and returns
// the op. A name the table does not have is a bug of this file, which its
// tests catch.
Op& set(Op& op, std::string_view field, Arg value) {
  const auto& fields = op_desc(op.code).fields;
  for (size_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == field) return op.a[i] = value, op;
  throw std::logic_error(fmt::format("{} has no field {}", op_desc(op.code).name, field));
}
Op set(Op&& op, std::string_view field, Arg value) { return set(op, field, value); }
Arg handle(uint32_t h) { return Arg{0, h, 0}; }
Arg number(uint64_t v) { return Arg{v, kNoHandle, 0}; }

// Returns the outcome a verb's return value names: OK or its errno.
Pattern returned(uint64_t rc) {
  return Pattern{rc == 0 ? Result::kOK : verbs::result_of_errno(static_cast<int>(rc)), {}, {}, {}};
}
Pattern completed(WcStatus st, std::optional<WcOpcode> op = {}) {
  return Pattern{Result::kOK, st, op, {}};
}

struct Mr {
  uint32_t h;
  uint32_t rkey;
};
struct Mw {
  uint32_t h;
  uint32_t cur = 0, prev = 0;  // the consumer's rkey (mw->rkey), now and before the last bind;
                               // a work request asks for its key byte relative to cur
  bool has_prev = false, zero_based = false;
};
struct Qp {
  uint32_t h;
  uint32_t num;
  bool sig_all;
  std::optional<uint32_t> dest;  // dest_qp_num once connected
};

class Converter {
 public:
  explicit Converter(const std::vector<Event>& events) : events_(events) { lay_out_buffers(); }

  Recording run(const std::string& source) {
    Recording r;
    comment(" recorded by mwcheck record from " + source);
    comment(" expected outcomes: what the program saw");
    // Buffers first, numbered in address order as lay_out_buffers made them.
    for (size_t i = 0; i < bufs_.size(); ++i)
      add(set(on(OpCode::buf, static_cast<uint32_t>(i)), "len", number(bufs_[i].second)), returned(0));
    for (const Event& e : events_) step(e);
    for (uint32_t i = 0; i < t_.ops.size(); ++i)
      if (expect_[i]) t_.expects.push_back(Expectation{i, true, 0, *expect_[i]});
    for (const Op& op : t_.ops) note_caps(t_.caps, op);
    r.expected = t_.expects.size();
    r.trace = std::move(t_);
    r.skipped = skipped_;
    return r;
  }

 private:
  // Buffers: the memory the program registered, address ranges that
  // overlap or touch merged into one buffer each.
  void lay_out_buffers() {
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // [begin, end)
    for (const Event& e : events_) {
      const bool mr = e.kind == EventKind::mr && e["rc"] == 0;
      const bool rr = e.kind == EventKind::rereg && e["rc"] == 0 && (e["flags"] & IBV_REREG_MR_CHANGE_TRANSLATION);
      if ((mr || rr) && e["len"] > 0 && e["len"] <= (1ull << 32) && e["addr"] + e["len"] > e["addr"])
        spans.emplace_back(e["addr"], e["addr"] + e["len"]);
    }
    std::sort(spans.begin(), spans.end());
    for (const auto& [b, end] : spans) {
      if (!bufs_.empty() && b <= bufs_.back().first + bufs_.back().second) {
        auto& last = bufs_.back();
        last.second = std::max(last.second, end - last.first);
      } else {
        bufs_.emplace_back(b, end - b);
      }
    }
    // A merged buffer longer than a trace allows is cut (its tail is then
    // addressed from the nearest buffer's base, past its end).
    for (auto& [b, len] : bufs_) len = std::min<uint64_t>(len, 1ull << 32);
  }

  // Returns an address as a trace names it: from the buffer holding it,
  // else from the nearest one.
  Arg addr(uint64_t a) const {
    if (bufs_.empty()) return Arg{a, kNoHandle, static_cast<uint8_t>(AddrBase::Raw)};
    size_t best = 0;
    uint64_t dist = ~0ull;
    for (size_t i = 0; i < bufs_.size(); ++i) {
      const auto [b, len] = bufs_[i];
      const uint64_t d = a < b ? b - a : a < b + len ? 0 : a - (b + len) + 1;
      if (d < dist) dist = d, best = i;
    }
    return Arg{a - bufs_[best].first, static_cast<uint32_t>(best), static_cast<uint8_t>(AddrBase::Buf)};
  }

  // Returns an rkey as a trace names it: by the window or MR it belongs to
  // (the consumer's copy now or before the last bind, or another key byte
  // of its index), else as the number.
  Arg rkey(uint32_t k) const {
    const auto base = [](RkeyBase b, uint32_t h, uint32_t delta) {
      return Arg{static_cast<uint8_t>(delta), h, static_cast<uint8_t>(b)};
    };
    for (const auto& [p, w] : mws_)
      if (k == w.cur) return base(RkeyBase::MwCur, w.h, 0);
    for (const auto& [p, w] : mws_)
      if (w.has_prev && k == w.prev) return base(RkeyBase::MwPrev, w.h, 0);
    for (const auto& [p, m] : mrs_)
      if (k == m.rkey) return base(RkeyBase::Mr, m.h, 0);
    for (const auto& [p, w] : mws_)
      if (layout::same_index(k, w.cur)) return base(RkeyBase::MwCur, w.h, k - w.cur);
    for (const auto& [p, m] : mrs_)
      if (layout::same_index(k, m.rkey)) return base(RkeyBase::Mr, m.h, k - m.rkey);
    return Arg{0, k, static_cast<uint8_t>(RkeyBase::Raw)};
  }

  const Mw* window_of(uint32_t rkey) const {
    for (const auto& [p, w] : mws_)
      if (layout::same_index(rkey, w.cur)) return &w;
    return nullptr;
  }

  static int kind(HandleKind k) { return static_cast<int>(k); }
  // Returns the next handle of a kind; `take` uses it up (a failed create
  // names the handle the next one will have).
  uint32_t next(HandleKind k, bool take) {
    const uint32_t h = next_[kind(k)];
    if (take) ++next_[kind(k)];
    return h;
  }

  // Appends an op, with the outcome the program saw (none: not known) and a
  // note at the end of its line.
  void add(const Op& op, std::optional<Pattern> saw, const std::string& note = {}) {
    if (!note.empty()) t_.comments.push_back(Comment{uint32_t(t_.ops.size()), true, " " + note});
    t_.ops.push_back(op);
    expect_.push_back(saw);
  }
  // A comment line before the next op.
  void comment(const std::string& text) {
    t_.comments.push_back(Comment{uint32_t(t_.ops.size()), false, text});
  }
  // Notes what the trace cannot say, in the trace and in the report.
  void skip(const Event& e, const std::string& why) {
    const std::string s = fmt::format("log line {}: {} not recorded: {}", e.line, event_name(e.kind), why);
    comment(" " + s);
    skipped_.push_back(s);
  }

  // Objects are known by their address in the process that made them.
  using Key = std::pair<uint32_t, uint64_t>;  // pid, address
  static Key key(const Event& e, std::string_view field) { return {e.pid, e[field]}; }

  template <class T>
  const T* find(const std::map<Key, T>& m, Key k, const Event& e, const char* what) {
    const auto it = m.find(k);
    if (it != m.end()) return &it->second;
    skip(e, fmt::format("it names a {} the recording never saw created", what));
    return nullptr;
  }

  // Returns the event's access bits that a trace names.
  static Arg access(const Event& e) { return number(e["access"] & all_bits(access_flag_names())); }

  // Returns a bind of window w by QP q: the MR and access of the event, its
  // range as given.
  Op bind(OpCode c, uint32_t q, uint32_t w, const Event& e, uint64_t at, uint64_t len) const {
    Op op = default_op(c);
    set(op, "qp", handle(q)), set(op, "mw", handle(w));
    if (const auto it = mrs_.find(key(e, "mr")); e["mr"] && it != mrs_.end()) set(op, "mr", handle(it->second.h));
    if (at) set(op, "addr", addr(at));
    if (len) set(op, "len", number(len));
    set(op, "access", access(e));
    return set(op, "flags", number(e["flags"] & all_bits(send_flag_names())));
  }

  void rebound(Mw& w, const Event& e, uint32_t asked) {
    // The consumer's copy is what the program holds now: mw->rkey, or the
    // key it asked for when the provider leaves mw->rkey alone.
    const uint32_t now = e["cur"] != w.cur ? static_cast<uint32_t>(e["cur"]) : asked;
    if (now != w.cur) w.prev = w.cur, w.has_prev = true, w.cur = now;
    w.zero_based = e["access"] & IBV_ACCESS_ZERO_BASED;
  }

  // Returns op `c` naming one object, and its handle.
  static Op on(OpCode c, uint32_t h) { return set(default_op(c), "h", handle(h)); }

  void step(const Event& e) {
    const uint64_t rc = e["rc"];
    switch (e.kind) {
      case EventKind::open:
        break;
      case EventKind::pd: {
        const uint32_t h = next(HandleKind::Pd, rc == 0);
        if (rc == 0) pds_[key(e, "pd")] = h;
        add(on(OpCode::alloc_pd, h), returned(rc));
        break;
      }
      case EventKind::pd_free:
        if (const uint32_t* h = find(pds_, key(e, "pd"), e, "PD")) {
          add(on(OpCode::dealloc_pd, *h), returned(rc));
          if (rc == 0) pds_.erase(key(e, "pd"));
        }
        break;
      case EventKind::mr: {
        const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
        if (!pd) break;
        const uint32_t h = next(HandleKind::Mr, rc == 0);
        std::string note;
        if (e["iova"] != e["addr"])
          note = fmt::format("registered at iova {:#x}; the trace registers at the address", e["iova"]);
        if (const uint64_t other = e["access"] & ~uint64_t{all_bits(access_flag_names())})
          note += (note.empty() ? "" : "; ") + fmt::format("access bits {:#x} dropped", other);
        Op op = on(OpCode::reg_mr, h);
        set(op, "pd", handle(*pd)), set(op, "addr", addr(e["addr"])), set(op, "len", number(e["len"]));
        add(set(op, "access", access(e)), returned(rc), note);
        if (rc == 0) mrs_[key(e, "mr")] = Mr{h, static_cast<uint32_t>(e["rkey"])};
        break;
      }
      case EventKind::mr_free:
        if (const Mr* m = find(mrs_, key(e, "mr"), e, "MR")) {
          add(on(OpCode::dereg_mr, m->h), returned(rc));
          if (rc == 0) mrs_.erase(key(e, "mr"));
        }
        break;
      case EventKind::rereg: {
        const auto it = mrs_.find(key(e, "mr"));
        if (it == mrs_.end()) return skip(e, "it names an MR the recording never saw created");
        const uint64_t f = e["flags"];
        Op op = set(on(OpCode::rereg_mr, it->second.h), "flags", number(f & all_bits(rereg_flag_names())));
        if (f & IBV_REREG_MR_CHANGE_PD) {
          const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
          if (!pd) break;
          set(op, "pd", handle(*pd));
        }
        if (f & IBV_REREG_MR_CHANGE_TRANSLATION) set(op, "addr", addr(e["addr"])), set(op, "len", number(e["len"]));
        if (f & IBV_REREG_MR_CHANGE_ACCESS) set(op, "access", access(e));
        add(op, returned(rc));
        if (rc == 0) it->second.rkey = static_cast<uint32_t>(e["rkey"]);
        break;
      }
      case EventKind::mw: {
        const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
        if (!pd) break;
        const uint32_t h = next(HandleKind::Mw, rc == 0);
        add(set(set(on(OpCode::alloc_mw, h), "pd", handle(*pd)), "type", number(e["type"] & 0xff)),
            returned(rc));
        if (rc == 0) mws_[key(e, "mw")] = Mw{h, static_cast<uint32_t>(e["rkey"])};
        break;
      }
      case EventKind::mw_free:
        if (const Mw* w = find(mws_, key(e, "mw"), e, "window")) {
          add(on(OpCode::dealloc_mw, w->h), returned(rc));
          if (rc == 0) mws_.erase(key(e, "mw"));
        }
        break;
      case EventKind::qp: {
        const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
        if (!pd) break;
        if (e["type"] != IBV_QPT_RC && e["type"] != IBV_QPT_UC)
          return skip(e, fmt::format("a QP of type {} (a trace's QPs are RC or UC)", e["type"]));
        const uint64_t depth = std::clamp<uint64_t>(e["depth"], 1, 64);
        const uint32_t h = next(HandleKind::Qp, rc == 0);
        Op op = on(OpCode::create_qp, h);
        set(op, "pd", handle(*pd)), set(op, "type", number(e["type"])), set(op, "depth", number(depth));
        set(op, "sig_all", number(e["sig_all"] != 0));
        add(set(op, "state", number(static_cast<uint64_t>(QpState::kRESET))), returned(rc),
            depth != e["depth"] ? fmt::format("max_send_wr {} (a trace's depth is 1 to 64)", e["depth"])
                                : std::string());
        if (rc == 0) qps_[key(e, "qp")] = Qp{h, static_cast<uint32_t>(e["num"]), e["sig_all"] != 0, {}};
        break;
      }
      case EventKind::qp_mod: {
        const auto it = qps_.find(key(e, "qp"));
        if (it == qps_.end()) return skip(e, "a QP the trace does not have");
        if (e["mask"] & IBV_QP_DEST_QPN) it->second.dest = static_cast<uint32_t>(e["dest"]);
        if (!(e["mask"] & IBV_QP_STATE)) break;  // attributes alone: the trace's devices choose them
        if (e["state"] >= qp_state_names().size()) return skip(e, "an unknown QP state");
        add(set(on(OpCode::modify_qp, it->second.h), "state", number(e["state"])), returned(rc));
        break;
      }
      case EventKind::qp_free: {
        const auto it = qps_.find(key(e, "qp"));
        if (it == qps_.end()) return skip(e, "a QP the trace does not have");
        add(on(OpCode::destroy_qp, it->second.h), returned(rc));
        if (rc == 0) qps_.erase(it);
        break;
      }
      case EventKind::bind: {
        const auto q = qps_.find(key(e, "qp"));
        if (q == qps_.end()) return skip(e, "a QP the trace does not have");
        const auto w = mws_.find(key(e, "mw"));
        if (w == mws_.end()) return skip(e, "it names a window the recording never saw allocated");
        add(bind(OpCode::bind_mw, q->second.h, w->second.h, e, e["addr"], e["len"]), returned(rc));
        if (rc == 0) rebound(w->second, e, static_cast<uint32_t>(e["cur"]));
        break;
      }
      case EventKind::send:
        post(e);
        break;
      case EventKind::wc:
        completion(e);
        break;
    }
  }

  void post(const Event& e) {
    const auto q = qps_.find(key(e, "qp"));
    if (q == qps_.end()) return skip(e, "a QP the trace does not have");
    const Qp& qp = q->second;
    const uint64_t rc = e["rc"];
    const auto own = [&](OpCode c) {
      return set(set(default_op(c), "qp", handle(qp.h)), "flags", number(e["flags"] & all_bits(send_flag_names())));
    };
    switch (e["opcode"]) {
      case IBV_WR_BIND_MW: {
        const auto w = mws_.find(key(e, "mw"));
        if (w == mws_.end()) return skip(e, "it names a window the recording never saw allocated");
        Op op = bind(OpCode::wr_bind_mw, qp.h, w->second.h, e, e["addr"], e["blen"]);
        // The key byte it asks for, from the consumer's copy.
        const Arg key_byte{static_cast<uint8_t>(e["key"] - w->second.cur), kNoHandle,
                           static_cast<uint8_t>(KeyBase::Rel)};
        add(set(op, "key", key_byte), returned(rc));
        if (rc == 0) rebound(w->second, e, static_cast<uint32_t>(e["key"]));
        return;
      }
      case IBV_WR_LOCAL_INV:
        return add(set(own(OpCode::wr_local_inv), "rkey", rkey(static_cast<uint32_t>(e["inv"]))), returned(rc));
      case IBV_WR_SEND:
      case IBV_WR_SEND_WITH_IMM:
        return add(set(own(OpCode::wr_send), "len", number(std::min<uint64_t>(e["len"], 0xffffffffull))),
                   returned(rc));
      default:
        break;
    }
    // The rest acts on the QP at the other end: the trace's peer of it.
    OpCode code{};
    switch (e["opcode"]) {
      case IBV_WR_RDMA_WRITE:
      case IBV_WR_RDMA_WRITE_WITH_IMM: code = OpCode::peer_write; break;
      case IBV_WR_RDMA_READ: code = OpCode::peer_read; break;
      case IBV_WR_ATOMIC_FETCH_AND_ADD: code = OpCode::peer_fetch_add; break;
      case IBV_WR_ATOMIC_CMP_AND_SWP: code = OpCode::peer_cmp_swap; break;
      case IBV_WR_SEND_WITH_INV: code = OpCode::peer_send_inv; break;
      default: return skip(e, fmt::format("work request opcode {}", e["opcode"]));
    }
    const Qp* target = nullptr;
    if (qp.dest)
      for (const auto& [p, t] : qps_)
        if (t.num == *qp.dest) target = &t;
    if (!target)
      return skip(e, fmt::format("q{} is connected to no QP of this program, so no trace QP is at the other end", qp.h));
    if (rc != 0)
      return skip(e, fmt::format("posting it failed ({}): the trace's peer always posts",
                                 mwc::name(*returned(rc).ret)));
    Op op = set(default_op(code), "qp", handle(target->h));
    if (code == OpCode::peer_send_inv) {
      set(op, "rkey", rkey(static_cast<uint32_t>(e["inv"])));
    } else {
      const uint32_t k = static_cast<uint32_t>(e["rkey"]);
      const Mw* w = window_of(k);
      set(op, "rkey", rkey(k));
      // A zero-based window is addressed by offset.
      set(op, "addr", w && w->zero_based ? Arg{e["raddr"], kNoHandle, static_cast<uint8_t>(AddrBase::Raw)}
                                         : addr(e["raddr"]));
      if (code == OpCode::peer_write || code == OpCode::peer_read)
        set(op, "len", number(std::min<uint64_t>(e["len"], 0xffffffffull)));
    }
    const bool signaled = qp.sig_all || (e["flags"] & IBV_SEND_SIGNALED);
    peers_[qp.num].push_back(PeerRequest{t_.ops.size(), e["wr_id"], signaled});
    add(op, std::nullopt, fmt::format("posted on q{}", qp.h));
  }

  // Gives a completion to the peer request it ends, if it ends one. A QP's
  // requests complete in the order they were posted, so the requests before
  // it that asked for no completion succeeded silently (an unsignaled one
  // completes only when it fails). Returns whether it was a peer request's.
  bool claim_peer_completion(uint32_t num, uint64_t wr_id, WcStatus st) {
    auto& q = peers_[num];
    const bool ok = st == WcStatus::kIBV_WC_SUCCESS;
    size_t i = 0;
    while (i < q.size() && !(q[i].wr_id == wr_id && (q[i].signaled || !ok))) ++i;
    if (i == q.size()) return false;
    for (size_t j = 0; j < i; ++j)
      if (!q[j].signaled) expect_[q[j].op] = completed(WcStatus::kIBV_WC_SUCCESS);
    expect_[q[i].op] = completed(st);
    q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return true;
  }

  void completion(const Event& e) {
    if (e["opcode"] & IBV_WC_RECV) return;  // a receive: the peer's side
    const WcStatus st = verbs::wc_status_of(static_cast<int>(e["status"]));
    if (claim_peer_completion(static_cast<uint32_t>(e["num"]), e["wr_id"], st)) return;
    const Qp* qp = nullptr;
    for (const auto& [p, t] : qps_)
      if (t.num == e["num"]) qp = &t;
    if (!qp) return skip(e, fmt::format("a completion of QP number {:#x}, which the trace does not have", e["num"]));
    // An error completion's opcode is undefined (IB spec 11.4.2.1): only its status counts.
    add(set(default_op(OpCode::poll_cq), "qp", handle(qp->h)),
        st == WcStatus::kIBV_WC_SUCCESS ? completed(st, verbs::wc_opcode_of(static_cast<int>(e["opcode"])))
                                        : completed(st));
  }

  const std::vector<Event>& events_;
  std::vector<std::pair<uint64_t, uint64_t>> bufs_;  // base, length
  Trace t_;
  std::vector<std::optional<Pattern>> expect_;  // of each op: what the program saw
  std::vector<std::string> skipped_;
  std::array<uint32_t, kHandleKinds> next_{};  // next handle of each kind
  std::map<Key, uint32_t> pds_;
  std::map<Key, Mr> mrs_;
  std::map<Key, Mw> mws_;
  std::map<Key, Qp> qps_;
  struct PeerRequest {
    size_t op;
    uint64_t wr_id;
    bool signaled;
  };
  std::map<uint32_t, std::deque<PeerRequest>> peers_;  // by the posting QP's number, in post order
};

}  // namespace

Recording to_trace(const std::vector<Event>& events, const std::string& source) {
  return Converter(events).run(source);
}

}  // namespace mwc::record
