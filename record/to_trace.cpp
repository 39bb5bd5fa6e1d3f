#include "record/to_trace.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <infiniband/verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"

namespace mwc::record {
namespace {

std::string_view name(OpCode c) { return op_desc(c).name; }

// Returns the text of a flag set ("0" when empty); bits the table has no
// name for are dropped (the caller says so).
std::string flags_text(uint64_t bits, std::span<const NamedValue> table) {
  std::string s;
  for (const auto& nv : table)
    if (bits & nv.value) s += (s.empty() ? "" : "|") + std::string(nv.name);
  return s.empty() ? "0" : s;
}

std::string qp_type_text(uint64_t type) {
  for (const auto& nv : qp_type_names())
    if (nv.value == type) return std::string(nv.name);
  return {};
}

// One op of the trace being written, with its expected outcome ("" for
// none) and a note for the reader.
struct Line {
  std::string op, expect, note;
};

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
    for (const Event& e : events_) step(e);
    Recording r;
    r.text = fmt::format("# recorded by mwcheck record from {}\n", source);
    r.text += "# expected outcomes: what the program saw\n";
    // Buffers first, numbered in address order as lay_out_buffers made them.
    for (size_t i = 0; i < bufs_.size(); ++i)
      r.text += fmt::format("{} b{} len={} => OK\n", name(OpCode::buf), i, bufs_[i].second);
    r.ops = bufs_.size();
    for (const Line& l : lines_) {
      if (l.op.empty()) {
        r.text += "# " + l.note + "\n";
        continue;
      }
      r.text += l.op;
      if (!l.expect.empty()) r.text += " => " + l.expect, ++r.expected;
      if (!l.note.empty()) r.text += "  # " + l.note;
      r.text += "\n";
      ++r.ops;
    }
    r.expected += bufs_.size();
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

  // Returns an address as the trace writes it: from the buffer holding it,
  // else from the nearest one.
  std::string addr_text(uint64_t a) const {
    if (bufs_.empty()) return fmt::format("{:#x}", a);
    size_t best = 0;
    uint64_t dist = ~0ull;
    for (size_t i = 0; i < bufs_.size(); ++i) {
      const auto [b, len] = bufs_[i];
      const uint64_t d = a < b ? b - a : a < b + len ? 0 : a - (b + len) + 1;
      if (d < dist) dist = d, best = i;
    }
    const uint64_t b = bufs_[best].first;
    if (a == b) return fmt::format("b{}", best);
    return a > b ? fmt::format("b{}+{}", best, a - b) : fmt::format("b{}-{}", best, b - a);
  }

  // Returns an rkey as the trace writes it: by the window or MR it names
  // (the consumer's copy now or before the last bind), else as a number.
  std::string rkey_text(uint32_t rkey) const {
    for (const auto& [p, w] : mws_)
      if (rkey == w.cur) return fmt::format("w{}", w.h);
    for (const auto& [p, w] : mws_)
      if (w.has_prev && rkey == w.prev) return fmt::format("w{}.prev", w.h);
    for (const auto& [p, m] : mrs_)
      if (rkey == m.rkey) return fmt::format("m{}", m.h);
    // Another key byte of a known index: the trace says how far it is.
    for (const auto& [p, w] : mws_)
      if ((rkey >> 8) == (w.cur >> 8)) return fmt::format("w{}+{}", w.h, uint8_t(rkey - w.cur));
    for (const auto& [p, m] : mrs_)
      if ((rkey >> 8) == (m.rkey >> 8)) return fmt::format("m{}+{}", m.h, uint8_t(rkey - m.rkey));
    return fmt::format("{:#x}", rkey);
  }

  const Mw* window_of(uint32_t rkey) const {
    for (const auto& [p, w] : mws_)
      if ((rkey >> 8) == (w.cur >> 8)) return &w;
    return nullptr;
  }

  static std::string rc_text(uint64_t rc) {
    return rc == 0 ? "OK" : std::string(mwc::name(verbs::result_of_errno(static_cast<int>(rc))));
  }

  void add(std::string op, std::string expect, std::string note = {}) {
    lines_.push_back(Line{std::move(op), std::move(expect), std::move(note)});
  }
  // Notes what the trace cannot say, in the trace and in the report.
  void skip(const Event& e, const std::string& why) {
    const std::string s = fmt::format("log line {}: {} not recorded: {}", e.line, event_name(e.kind), why);
    lines_.push_back(Line{{}, {}, s});
    skipped_.push_back(s);
  }

  // Objects are known by their address in the process that made them.
  using Key = std::pair<uint32_t, uint64_t>;
  static Key key(const Event& e, std::string_view field) { return {e.pid, e[field]}; }

  template <class T>
  const T* find(const std::map<Key, T>& m, Key k, const Event& e, const char* what) {
    const auto it = m.find(k);
    if (it != m.end()) return &it->second;
    skip(e, fmt::format("it names a {} the recording never saw created", what));
    return nullptr;
  }

  // Returns the fields of a bind after its QP and window (the MR and access
  // of the event; its range as given).
  std::string bind_fields(const Event& e, uint64_t addr, uint64_t len) const {
    std::string s;
    if (const auto it = mrs_.find(key(e, "mr")); e["mr"] && it != mrs_.end())
      s += fmt::format(" mr=m{}", it->second.h);
    if (addr) s += " addr=" + addr_text(addr);
    if (len) s += fmt::format(" len={}", len);
    return s + " access=" + flags_text(e["access"], access_flag_names());
  }

  void rebound(Mw& w, const Event& e, uint32_t asked) {
    // The consumer's copy is what the program holds now: mw->rkey, or the
    // key it asked for when the provider leaves mw->rkey alone.
    const uint32_t now = e["cur"] != w.cur ? static_cast<uint32_t>(e["cur"]) : asked;
    if (now != w.cur) w.prev = w.cur, w.has_prev = true, w.cur = now;
    w.zero_based = e["access"] & IBV_ACCESS_ZERO_BASED;
  }

  void step(const Event& e) {
    switch (e.kind) {
      case EventKind::open:
        break;
      case EventKind::pd: {
        const uint32_t h = next_[1];
        if (e["rc"] == 0) pds_[key(e, "pd")] = next_[1]++;
        add(fmt::format("{} p{}", name(OpCode::alloc_pd), h), rc_text(e["rc"]));
        break;
      }
      case EventKind::pd_free:
        if (const uint32_t* h = find(pds_, key(e, "pd"), e, "PD")) {
          add(fmt::format("{} p{}", name(OpCode::dealloc_pd), *h), rc_text(e["rc"]));
          if (e["rc"] == 0) pds_.erase(key(e, "pd"));
        }
        break;
      case EventKind::mr: {
        const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
        if (!pd) break;
        const uint32_t h = next_[2];
        std::string note;
        if (e["iova"] != e["addr"])
          note = fmt::format("registered at iova {:#x}; the trace registers at the address", e["iova"]);
        if (e["access"] & ~uint64_t{all_bits(access_flag_names())})
          note += (note.empty() ? "" : "; ") + fmt::format("access bits {:#x} dropped",
                                                             e["access"] & ~uint64_t{all_bits(access_flag_names())});
        add(fmt::format("{} m{} pd=p{} addr={} len={} access={}", name(OpCode::reg_mr), h, *pd,
                        addr_text(e["addr"]), e["len"], flags_text(e["access"], access_flag_names())),
            rc_text(e["rc"]), note);
        if (e["rc"] == 0) mrs_[key(e, "mr")] = Mr{next_[2]++, static_cast<uint32_t>(e["rkey"])};
        break;
      }
      case EventKind::mr_free:
        if (const Mr* m = find(mrs_, key(e, "mr"), e, "MR")) {
          add(fmt::format("{} m{}", name(OpCode::dereg_mr), m->h), rc_text(e["rc"]));
          if (e["rc"] == 0) mrs_.erase(key(e, "mr"));
        }
        break;
      case EventKind::rereg: {
        const auto it = mrs_.find(key(e, "mr"));
        if (it == mrs_.end()) return skip(e, "it names an MR the recording never saw created");
        const uint64_t f = e["flags"];
        std::string s = fmt::format("{} m{} flags={}", name(OpCode::rereg_mr), it->second.h,
                                    flags_text(f, rereg_flag_names()));
        if (f & IBV_REREG_MR_CHANGE_PD) {
          const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
          if (!pd) break;
          s += fmt::format(" pd=p{}", *pd);
        }
        if (f & IBV_REREG_MR_CHANGE_TRANSLATION)
          s += fmt::format(" addr={} len={}", addr_text(e["addr"]), e["len"]);
        if (f & IBV_REREG_MR_CHANGE_ACCESS)
          s += " access=" + flags_text(e["access"], access_flag_names());
        add(s, rc_text(e["rc"]));
        if (e["rc"] == 0) it->second.rkey = static_cast<uint32_t>(e["rkey"]);
        break;
      }
      case EventKind::mw: {
        const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
        if (!pd) break;
        const uint32_t h = next_[3];
        add(fmt::format("{} w{} pd=p{} type={}", name(OpCode::alloc_mw), h, *pd, e["type"]),
            rc_text(e["rc"]));
        if (e["rc"] == 0) mws_[key(e, "mw")] = Mw{next_[3]++, static_cast<uint32_t>(e["rkey"])};
        break;
      }
      case EventKind::mw_free:
        if (const Mw* w = find(mws_, key(e, "mw"), e, "window")) {
          add(fmt::format("{} w{}", name(OpCode::dealloc_mw), w->h), rc_text(e["rc"]));
          if (e["rc"] == 0) mws_.erase(key(e, "mw"));
        }
        break;
      case EventKind::qp: {
        const uint32_t* pd = find(pds_, key(e, "pd"), e, "PD");
        if (!pd) break;
        const std::string type = qp_type_text(e["type"]);
        if (type.empty() || (e["type"] != IBV_QPT_RC && e["type"] != IBV_QPT_UC))
          return skip(e, fmt::format("a QP of type {} (a trace's QPs are RC or UC)", e["type"]));
        const uint64_t depth = std::clamp<uint64_t>(e["depth"], 1, 64);
        const uint32_t h = next_[4];
        add(fmt::format("{} q{} pd=p{} type={} depth={} sig_all={} state=RESET", name(OpCode::create_qp),
                        h, *pd, type, depth, e["sig_all"]),
            rc_text(e["rc"]),
            depth != e["depth"] ? fmt::format("max_send_wr {} (a trace's depth is 1 to 64)", e["depth"])
                                : std::string());
        if (e["rc"] == 0) {
          qps_[key(e, "qp")] = Qp{next_[4]++, static_cast<uint32_t>(e["num"]), e["sig_all"] != 0, {}};
        }
        break;
      }
      case EventKind::qp_mod: {
        const auto it = qps_.find(key(e, "qp"));
        if (it == qps_.end()) return skip(e, "a QP the trace does not have");
        if (e["mask"] & IBV_QP_DEST_QPN) it->second.dest = static_cast<uint32_t>(e["dest"]);
        if (!(e["mask"] & IBV_QP_STATE)) break;  // attributes alone: the trace's devices choose them
        if (e["state"] >= qp_state_names().size()) return skip(e, "an unknown QP state");
        add(fmt::format("{} q{} state={}", name(OpCode::modify_qp), it->second.h,
                        qp_state_names()[e["state"]].name),
            rc_text(e["rc"]));
        break;
      }
      case EventKind::qp_free: {
        const auto it = qps_.find(key(e, "qp"));
        if (it == qps_.end()) return skip(e, "a QP the trace does not have");
        add(fmt::format("{} q{}", name(OpCode::destroy_qp), it->second.h), rc_text(e["rc"]));
        if (e["rc"] == 0) qps_.erase(it);
        break;
      }
      case EventKind::bind: {
        const auto q = qps_.find(key(e, "qp"));
        if (q == qps_.end()) return skip(e, "a QP the trace does not have");
        const auto w = mws_.find(key(e, "mw"));
        if (w == mws_.end()) return skip(e, "it names a window the recording never saw allocated");
        add(fmt::format("{} q{} w{}{} flags={}", name(OpCode::bind_mw), q->second.h, w->second.h,
                        bind_fields(e, e["addr"], e["len"]),
                        flags_text(e["flags"], send_flag_names())),
            rc_text(e["rc"]));
        if (e["rc"] == 0) rebound(w->second, e, static_cast<uint32_t>(e["cur"]));
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
    const std::string flags = flags_text(e["flags"], send_flag_names());
    const uint64_t rc = e["rc"];
    switch (e["opcode"]) {
      case IBV_WR_BIND_MW: {
        const auto w = mws_.find(key(e, "mw"));
        if (w == mws_.end()) return skip(e, "it names a window the recording never saw allocated");
        add(fmt::format("{} q{} w{}{} key=+{} flags={}", name(OpCode::wr_bind_mw), qp.h, w->second.h,
                        bind_fields(e, e["addr"], e["blen"]),
                        uint8_t(e["key"] - w->second.cur), flags),
            rc_text(rc));
        if (rc == 0) rebound(w->second, e, static_cast<uint32_t>(e["key"]));
        return;
      }
      case IBV_WR_LOCAL_INV:
        return add(fmt::format("{} q{} rkey={} flags={}", name(OpCode::wr_local_inv), qp.h,
                               rkey_text(static_cast<uint32_t>(e["inv"])), flags),
                   rc_text(rc));
      case IBV_WR_SEND:
      case IBV_WR_SEND_WITH_IMM:
        return add(fmt::format("{} q{} len={} flags={}", name(OpCode::wr_send), qp.h, e["len"], flags),
                   rc_text(rc));
      default:
        break;
    }
    // The rest acts on the QP at the other end: the trace's peer of it.
    const char* what = nullptr;
    OpCode code{};
    switch (e["opcode"]) {
      case IBV_WR_RDMA_WRITE:
      case IBV_WR_RDMA_WRITE_WITH_IMM: code = OpCode::peer_write, what = "len"; break;
      case IBV_WR_RDMA_READ: code = OpCode::peer_read, what = "len"; break;
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
      return skip(e, fmt::format("posting it failed ({}): the trace's peer always posts", rc_text(rc)));
    std::string s;
    if (code == OpCode::peer_send_inv) {
      s = fmt::format("{} q{} rkey={}", name(code), target->h, rkey_text(static_cast<uint32_t>(e["inv"])));
    } else {
      const uint32_t rkey = static_cast<uint32_t>(e["rkey"]);
      const Mw* w = window_of(rkey);
      // A zero-based window is addressed by offset.
      const std::string addr = w && w->zero_based ? fmt::format("{:#x}", e["raddr"]) : addr_text(e["raddr"]);
      s = fmt::format("{} q{} rkey={} addr={}", name(code), target->h, rkey_text(rkey), addr);
      if (what) s += fmt::format(" len={}", std::min<uint64_t>(e["len"], 0xffffffffull));
    }
    const bool signaled = qp.sig_all || (e["flags"] & IBV_SEND_SIGNALED);
    peers_[qp.num].push_back(PeerRequest{lines_.size(), e["wr_id"], signaled});
    add(s, "", fmt::format("posted on q{}", qp.h));
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
      if (!q[j].signaled) lines_[q[j].line].expect = mwc::name(WcStatus::kIBV_WC_SUCCESS);
    lines_[q[i].line].expect = mwc::name(st);
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
    std::string expect(mwc::name(st));
    if (st == WcStatus::kIBV_WC_SUCCESS)
      expect += fmt::format(" {}", mwc::name(verbs::wc_opcode_of(static_cast<int>(e["opcode"]))));
    add(fmt::format("{} q{}", name(OpCode::poll_cq), qp->h), expect);
  }

  const std::vector<Event>& events_;
  std::vector<std::pair<uint64_t, uint64_t>> bufs_;  // base, length
  std::vector<Line> lines_;
  std::vector<std::string> skipped_;
  std::array<uint32_t, kHandleKinds> next_{};  // next handle of each kind
  std::map<Key, uint32_t> pds_;
  std::map<Key, Mr> mrs_;
  std::map<Key, Mw> mws_;
  std::map<Key, Qp> qps_;
  struct PeerRequest {
    size_t line;
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
