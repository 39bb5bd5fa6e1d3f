#include "record/to_trace.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <optional>

#include <fmt/format.h>
#include <infiniband/verbs.h>

#include "adapters/verbs/mapping.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::record {
namespace {

// Returns the outcome a verb's return value names: OK or its errno.
Pattern returned(uint64_t rc) {
  return Pattern{rc == 0 ? Result::kOK : verbs::result_of_errno(static_cast<int>(rc)), {}, {}, {}};
}
Pattern completed(WcStatus st, std::optional<WcOpcode> op = {}) {
  return Pattern{Result::kOK, st, op, {}};
}

// Returns the bits of a recorded flag set that a trace names.
uint32_t access(uint64_t bits) { return static_cast<uint32_t>(bits & all_bits(access_flag_names())); }
uint32_t send_flags(uint64_t bits) { return static_cast<uint32_t>(bits & all_bits(send_flag_names())); }

// Returns op B naming one object, its handle h.
template <class B>
Op on_object(uint32_t h) {
  B b;
  b.h = h;
  return b.to_op();
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

// Objects known by an rkey, exactly or by its index (the key byte aside),
// so that naming a request's rkey is a lookup, not a scan of every window
// and MR. Among several, the first in the order of their keys (pid,
// address), as a scan of the maps would find.
template <class Key>
class KeyIndex {
 public:
  void add(uint32_t rkey, const Key& k) {
    exact_[rkey].insert(k);
    by_index_[layout::rkey_index(rkey)].insert(k);
  }
  void remove(uint32_t rkey, const Key& k) {
    drop(exact_, rkey, k);
    drop(by_index_, layout::rkey_index(rkey), k);
  }
  // Returns the first object holding exactly `rkey`, or null.
  const Key* exact(uint32_t rkey) const { return first(exact_, rkey); }
  // Returns the first object whose rkey has `rkey`'s index, or null.
  const Key* same_index(uint32_t rkey) const { return first(by_index_, layout::rkey_index(rkey)); }

 private:
  using Table = std::unordered_map<uint32_t, std::set<Key>>;
  static void drop(Table& t, uint32_t v, const Key& k) {
    const auto it = t.find(v);
    if (it == t.end()) return;
    it->second.erase(k);
    if (it->second.empty()) t.erase(it);
  }
  static const Key* first(const Table& t, uint32_t v) {
    const auto it = t.find(v);
    return it == t.end() ? nullptr : &*it->second.begin();
  }
  Table exact_, by_index_;
};

class Converter {
  // Objects are known by their address in the process that made them.
  using Key = std::pair<uint32_t, uint64_t>;  // pid, address

 public:
  explicit Converter(const std::vector<Event>& events) : events_(events) { lay_out_buffers(); }

  Recording run(const std::string& source) {
    Recording r;
    comment(" recorded by mwcheck record from " + source);
    comment(" expected outcomes: what the program saw");
    // Buffers first, numbered in address order as lay_out_buffers made them.
    for (size_t i = 0; i < bufs_.size(); ++i) {
      args::buf b;
      b.h = static_cast<uint32_t>(i), b.len = bufs_[i].second;
      add(b.to_op(), returned(0));
    }
    for (const Event& e : events_) visit(e, [&](const auto& x) { on(e, x); });
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
    const auto span = [&](uint64_t addr, uint64_t len) {
      if (len > 0 && len <= (1ull << 32) && addr + len > addr) spans.emplace_back(addr, addr + len);
    };
    for (const Event& e : events_) {
      if (e.kind == EventKind::mr)
        if (const auto m = e.as<ev::mr>(); m.rc == 0) span(m.addr, m.len);
      if (e.kind == EventKind::rereg)
        if (const auto r = e.as<ev::rereg>(); r.rc == 0 && (r.flags & IBV_REREG_MR_CHANGE_TRANSLATION))
          span(r.addr, r.len);
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
  // else from the nearest one (the earlier of two as near). Buffers are
  // sorted and apart, so only the last one starting at or before `a` and
  // the one after it can be nearest: a binary search, not a scan per
  // address (a program with 10^5 MRs).
  Arg addr(uint64_t a) const {
    if (bufs_.empty()) return Arg{a, kNoHandle, static_cast<uint8_t>(AddrBase::Raw)};
    const auto dist = [&](size_t i) {
      const auto [b, len] = bufs_[i];
      return a < b ? b - a : a < b + len ? 0 : a - (b + len) + 1;
    };
    const auto after = std::upper_bound(bufs_.begin(), bufs_.end(), a,
                                        [](uint64_t v, const auto& buf) { return v < buf.first; });
    size_t best = static_cast<size_t>(after - bufs_.begin());
    if (best == bufs_.size() || (best > 0 && dist(best - 1) <= dist(best))) --best;
    return Arg{a - bufs_[best].first, static_cast<uint32_t>(best), static_cast<uint8_t>(AddrBase::Buf)};
  }

  // Returns an rkey as a trace names it: by the window or MR it belongs to
  // (the consumer's copy now or before the last bind, or another key byte
  // of its index), else as the number.
  Arg rkey(uint32_t k) const {
    const auto base = [](RkeyBase b, uint32_t h, uint32_t delta) {
      return Arg{static_cast<uint8_t>(delta), h, static_cast<uint8_t>(b)};
    };
    if (const Key* w = mw_cur_.exact(k)) return base(RkeyBase::MwCur, mws_.at(*w).h, 0);
    if (const Key* w = mw_prev_.exact(k)) return base(RkeyBase::MwPrev, mws_.at(*w).h, 0);
    if (const Key* m = mr_rkey_.exact(k)) return base(RkeyBase::Mr, mrs_.at(*m).h, 0);
    if (const Key* w = mw_cur_.same_index(k)) {
      const Mw& mw = mws_.at(*w);
      return base(RkeyBase::MwCur, mw.h, k - mw.cur);
    }
    if (const Key* m = mr_rkey_.same_index(k)) {
      const Mr& mr = mrs_.at(*m);
      return base(RkeyBase::Mr, mr.h, k - mr.rkey);
    }
    return Arg{0, k, static_cast<uint8_t>(RkeyBase::Raw)};
  }

  const Mw* window_of(uint32_t rkey) const {
    const Key* w = mw_cur_.same_index(rkey);
    return w ? &mws_.at(*w) : nullptr;
  }

  // The maps and the rkey indexes change together. (Keys by value: a
  // caller's may live in the node these replace.)
  void put_mr(Key k, Mr m) {
    if (const auto it = mrs_.find(k); it != mrs_.end()) mr_rkey_.remove(it->second.rkey, k);
    mrs_[k] = m;
    mr_rkey_.add(m.rkey, k);
  }
  void drop_mr(Key k) {
    if (const auto it = mrs_.find(k); it != mrs_.end()) mr_rkey_.remove(it->second.rkey, k), mrs_.erase(it);
  }
  void put_mw(Key k, Mw w) {
    if (const auto it = mws_.find(k); it != mws_.end()) unindex(k, it->second);
    mws_[k] = w;
    mw_cur_.add(w.cur, k);
    if (w.has_prev) mw_prev_.add(w.prev, k);
  }
  void drop_mw(Key k) {
    const auto it = mws_.find(k);
    if (it == mws_.end()) return;
    unindex(k, it->second);
    mws_.erase(it);
  }
  void unindex(const Key& k, const Mw& w) {
    mw_cur_.remove(w.cur, k);
    if (w.has_prev) mw_prev_.remove(w.prev, k);
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

  static Key key(const Event& e, uint64_t object) { return {e.pid, object}; }

  template <class T>
  const T* find(const std::map<Key, T>& m, Key k, const Event& e, const char* what) {
    const auto it = m.find(k);
    if (it != m.end()) return &it->second;
    skip(e, fmt::format("it names a {} the recording never saw created", what));
    return nullptr;
  }

  // Returns a bind B of window w by QP q: the MR, address, access and flags
  // of the event x, and length len.
  template <class B, class X>
  B bind(uint32_t q, uint32_t w, const Event& e, const X& x, uint64_t len) const {
    B b;
    b.qp = q, b.mw = w;
    if (const auto it = mrs_.find(key(e, x.mr)); x.mr && it != mrs_.end()) b.mr = it->second.h;
    if (x.addr) b.addr = addr(x.addr);
    if (len) b.len = len;
    b.access = access(x.access);
    b.flags = send_flags(x.flags);
    return b;
  }

  // A bind of window w asked for key `asked` with access `bits`; `cur` is
  // mw->rkey after it.
  void rebound(Key k, uint64_t cur, uint64_t bits, uint32_t asked) {
    Mw w = mws_.at(k);
    // The consumer's copy is what the program holds now: mw->rkey, or the
    // key it asked for when the provider leaves mw->rkey alone.
    const uint32_t now = cur != w.cur ? static_cast<uint32_t>(cur) : asked;
    if (now != w.cur) w.prev = w.cur, w.has_prev = true, w.cur = now;
    w.zero_based = bits & IBV_ACCESS_ZERO_BASED;
    put_mw(k, w);
  }

  // One handler per event (visit does not compile without it).
  void on(const Event&, const ev::open&) {}

  void on(const Event& e, const ev::pd& x) {
    const uint32_t h = next(HandleKind::Pd, x.rc == 0);
    if (x.rc == 0) pds_[key(e, x.pd)] = h;
    add(on_object<args::alloc_pd>(h), returned(x.rc));
  }

  void on(const Event& e, const ev::pd_free& x) {
    if (const uint32_t* h = find(pds_, key(e, x.pd), e, "PD")) {
      add(on_object<args::dealloc_pd>(*h), returned(x.rc));
      if (x.rc == 0) pds_.erase(key(e, x.pd));
    }
  }

  void on(const Event& e, const ev::mr& x) {
    const uint32_t* pd = find(pds_, key(e, x.pd), e, "PD");
    if (!pd) return;
    const uint32_t h = next(HandleKind::Mr, x.rc == 0);
    std::string note;
    if (x.iova != x.addr)
      note = fmt::format("registered at iova {:#x}; the trace registers at the address", x.iova);
    if (const uint64_t other = x.access & ~uint64_t{all_bits(access_flag_names())})
      note += (note.empty() ? "" : "; ") + fmt::format("access bits {:#x} dropped", other);
    args::reg_mr b;
    b.h = h, b.pd = *pd, b.addr = addr(x.addr), b.len = x.len, b.access = access(x.access);
    add(b.to_op(), returned(x.rc), note);
    if (x.rc == 0) put_mr(key(e, x.mr), Mr{h, static_cast<uint32_t>(x.rkey)});
  }

  void on(const Event& e, const ev::mr_free& x) {
    if (const Mr* m = find(mrs_, key(e, x.mr), e, "MR")) {
      add(on_object<args::dereg_mr>(m->h), returned(x.rc));
      if (x.rc == 0) drop_mr(key(e, x.mr));
    }
  }

  void on(const Event& e, const ev::rereg& x) {
    const auto it = mrs_.find(key(e, x.mr));
    if (it == mrs_.end()) return skip(e, "it names an MR the recording never saw created");
    args::rereg_mr b;
    b.h = it->second.h;
    b.flags = static_cast<uint32_t>(x.flags & all_bits(rereg_flag_names()));
    if (x.flags & IBV_REREG_MR_CHANGE_PD) {
      const uint32_t* pd = find(pds_, key(e, x.pd), e, "PD");
      if (!pd) return;
      b.pd = *pd;
    }
    if (x.flags & IBV_REREG_MR_CHANGE_TRANSLATION) b.addr = addr(x.addr), b.len = x.len;
    if (x.flags & IBV_REREG_MR_CHANGE_ACCESS) b.access = access(x.access);
    add(b.to_op(), returned(x.rc));
    if (x.rc == 0) put_mr(it->first, Mr{it->second.h, static_cast<uint32_t>(x.rkey)});
  }

  void on(const Event& e, const ev::mw& x) {
    const uint32_t* pd = find(pds_, key(e, x.pd), e, "PD");
    if (!pd) return;
    const uint32_t h = next(HandleKind::Mw, x.rc == 0);
    args::alloc_mw b;
    b.h = h, b.pd = *pd, b.type = x.type & 0xff;
    add(b.to_op(), returned(x.rc));
    if (x.rc == 0) put_mw(key(e, x.mw), Mw{h, static_cast<uint32_t>(x.rkey)});
  }

  void on(const Event& e, const ev::mw_free& x) {
    if (const Mw* w = find(mws_, key(e, x.mw), e, "window")) {
      add(on_object<args::dealloc_mw>(w->h), returned(x.rc));
      if (x.rc == 0) drop_mw(key(e, x.mw));
    }
  }

  void on(const Event& e, const ev::qp& x) {
    const uint32_t* pd = find(pds_, key(e, x.pd), e, "PD");
    if (!pd) return;
    if (x.type != IBV_QPT_RC && x.type != IBV_QPT_UC)
      return skip(e, fmt::format("a QP of type {} (a trace's QPs are RC or UC)", x.type));
    const uint64_t depth = std::clamp<uint64_t>(x.depth, 1, 64);
    const uint32_t h = next(HandleKind::Qp, x.rc == 0);
    args::create_qp b;
    b.h = h, b.pd = *pd, b.type = static_cast<uint32_t>(x.type), b.depth = depth;
    b.sig_all = x.sig_all != 0, b.state = static_cast<uint32_t>(QpState::kRESET);
    add(b.to_op(), returned(x.rc),
        depth != x.depth ? fmt::format("max_send_wr {} (a trace's depth is 1 to 64)", x.depth)
                         : std::string());
    if (x.rc == 0) qps_[key(e, x.qp)] = Qp{h, static_cast<uint32_t>(x.num), x.sig_all != 0, {}};
  }

  void on(const Event& e, const ev::qp_mod& x) {
    const auto it = qps_.find(key(e, x.qp));
    if (it == qps_.end()) return skip(e, "a QP the trace does not have");
    if (x.mask & IBV_QP_DEST_QPN) it->second.dest = static_cast<uint32_t>(x.dest);
    if (!(x.mask & IBV_QP_STATE)) return;  // attributes alone: the trace's devices choose them
    if (x.state >= qp_state_names().size()) return skip(e, "an unknown QP state");
    args::modify_qp b;
    b.h = it->second.h, b.state = static_cast<uint32_t>(x.state);
    add(b.to_op(), returned(x.rc));
  }

  void on(const Event& e, const ev::qp_free& x) {
    const auto it = qps_.find(key(e, x.qp));
    if (it == qps_.end()) return skip(e, "a QP the trace does not have");
    add(on_object<args::destroy_qp>(it->second.h), returned(x.rc));
    if (x.rc == 0) qps_.erase(it);
  }

  void on(const Event& e, const ev::bind& x) {
    const auto q = qps_.find(key(e, x.qp));
    if (q == qps_.end()) return skip(e, "a QP the trace does not have");
    const auto w = mws_.find(key(e, x.mw));
    if (w == mws_.end()) return skip(e, "it names a window the recording never saw allocated");
    add(bind<args::bind_mw>(q->second.h, w->second.h, e, x, x.len).to_op(), returned(x.rc));
    if (x.rc == 0) rebound(w->first, x.cur, x.access, static_cast<uint32_t>(x.cur));
  }

  // Returns the op B of the peer of QP q that request x of the QP at the
  // other end makes.
  template <class B>
  Op peer(uint32_t q, const ev::send& x) const {
    B b;
    b.qp = q;
    if constexpr (B::code == OpCode::peer_send_inv) {
      b.rkey = rkey(static_cast<uint32_t>(x.inv));
    } else {
      const uint32_t k = static_cast<uint32_t>(x.rkey);
      const Mw* w = window_of(k);
      b.rkey = rkey(k);
      // A zero-based window is addressed by offset.
      b.addr = w && w->zero_based ? Arg{x.raddr, kNoHandle, static_cast<uint8_t>(AddrBase::Raw)}
                                  : addr(x.raddr);
      if constexpr (B::code == OpCode::peer_write || B::code == OpCode::peer_read)
        b.len = std::min<uint64_t>(x.len, 0xffffffffull);
    }
    return b.to_op();
  }

  void on(const Event& e, const ev::send& x) {
    const auto q = qps_.find(key(e, x.qp));
    if (q == qps_.end()) return skip(e, "a QP the trace does not have");
    const Qp& qp = q->second;
    // An op of the QP's own, B: on it, with the request's flags.
    const auto own = [&]<class B>(B b) {
      b.qp = qp.h, b.flags = send_flags(x.flags);
      return b;
    };
    switch (x.opcode) {
      case IBV_WR_BIND_MW: {
        const auto w = mws_.find(key(e, x.mw));
        if (w == mws_.end()) return skip(e, "it names a window the recording never saw allocated");
        auto b = bind<args::wr_bind_mw>(qp.h, w->second.h, e, x, x.blen);
        // The key byte it asks for, from the consumer's copy.
        b.key = Arg{static_cast<uint8_t>(x.key - w->second.cur), kNoHandle, static_cast<uint8_t>(KeyBase::Rel)};
        add(b.to_op(), returned(x.rc));
        if (x.rc == 0) rebound(w->first, x.cur, x.access, static_cast<uint32_t>(x.key));
        return;
      }
      case IBV_WR_LOCAL_INV: {
        auto b = own(args::wr_local_inv{});
        b.rkey = rkey(static_cast<uint32_t>(x.inv));
        return add(b.to_op(), returned(x.rc));
      }
      case IBV_WR_SEND:
      case IBV_WR_SEND_WITH_IMM: {
        auto b = own(args::wr_send{});
        // A trace's send names no local MR: bytes the program sent from
        // registered memory (an lkey in its scatter/gather list) are not
        // the trace's to send. Inline data is.
        if ((x.flags & IBV_SEND_INLINE) || x.len == 0) {
          b.len = std::min<uint64_t>(x.len, 0xffffffffull);
          return add(b.to_op(), returned(x.rc));
        }
        const std::string s = fmt::format("log line {}: send recorded without its {} bytes from registered "
                                          "memory: a trace's send names no local MR",
                                          e.line, x.len);
        skipped_.push_back(s);
        return add(b.to_op(), returned(x.rc), s);
      }
      default:
        break;
    }
    // The rest acts on the QP at the other end: the trace's peer of it.
    Op (Converter::*make)(uint32_t, const ev::send&) const = nullptr;
    switch (x.opcode) {
      case IBV_WR_RDMA_WRITE:
      case IBV_WR_RDMA_WRITE_WITH_IMM: make = &Converter::peer<args::peer_write>; break;
      case IBV_WR_RDMA_READ: make = &Converter::peer<args::peer_read>; break;
      case IBV_WR_ATOMIC_FETCH_AND_ADD: make = &Converter::peer<args::peer_fetch_add>; break;
      case IBV_WR_ATOMIC_CMP_AND_SWP: make = &Converter::peer<args::peer_cmp_swap>; break;
      case IBV_WR_SEND_WITH_INV: make = &Converter::peer<args::peer_send_inv>; break;
      default: return skip(e, fmt::format("work request opcode {}", x.opcode));
    }
    const Qp* target = nullptr;
    if (qp.dest)
      for (const auto& [p, t] : qps_)
        if (t.num == *qp.dest) target = &t;
    if (!target)
      return skip(e, fmt::format("q{} is connected to no QP of this program, so no trace QP is at the other end", qp.h));
    if (x.rc != 0)
      return skip(e, fmt::format("posting it failed ({}): the trace's peer always posts",
                                 mwc::name(*returned(x.rc).ret)));
    const bool signaled = qp.sig_all || (x.flags & IBV_SEND_SIGNALED);
    peers_[qp.num].push_back(PeerRequest{t_.ops.size(), x.wr_id, signaled});
    add((this->*make)(target->h, x), std::nullopt, fmt::format("posted on q{}", qp.h));
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

  void on(const Event& e, const ev::wc& x) {
    if (x.opcode & IBV_WC_RECV) return;  // a receive: the peer's side
    const WcStatus st = verbs::wc_status_of(static_cast<int>(x.status));
    if (claim_peer_completion(static_cast<uint32_t>(x.num), x.wr_id, st)) return;
    const Qp* qp = nullptr;
    for (const auto& [p, t] : qps_)
      if (t.num == x.num) qp = &t;
    if (!qp) return skip(e, fmt::format("a completion of QP number {:#x}, which the trace does not have", x.num));
    args::poll_cq b;
    b.qp = qp->h;
    // An error completion's opcode is undefined (IB spec 11.4.2.1): only its status counts.
    add(b.to_op(), st == WcStatus::kIBV_WC_SUCCESS
                       ? completed(st, verbs::wc_opcode_of(static_cast<int>(x.opcode)))
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
  KeyIndex<Key> mr_rkey_, mw_cur_, mw_prev_;  // of mrs_ and mws_
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
