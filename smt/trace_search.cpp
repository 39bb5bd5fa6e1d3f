#include "smt/trace_search.hpp"

#include <chrono>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <z3++.h>

#include "compare/run.hpp"
#include "refmodel/checksum.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/model.hpp"
#include "refmodel/text_codec.hpp"
#include "smt/domain.hpp"
#ifdef MWCHECK_BREAKABLE_MODEL
#include "refmodel/broken_rules.hpp"
#endif

namespace mwc::smt {
#ifdef MWCHECK_BREAKABLE_MODEL
inline namespace breakable {
using S = Broken<Sym>;  // tests only: the symbolic side of a broken template
#else
using S = Sym;
#endif
namespace {

// ---- the values the walk tries ---------------------------------------------

constexpr uint32_t kAllMr = acc::LOCAL_READ | acc::LOCAL_WRITE | acc::REMOTE_READ |
                            acc::REMOTE_WRITE | acc::REMOTE_ATOMIC | acc::MW_BIND;
// MR access: every right, then each right a bind or access rule tests taken
// away (MW_BIND: C10-73; LOCAL_READ: local_read; LOCAL_WRITE and with it
// remote write: C10-74), and remote write without LOCAL_WRITE (ibv_reg_mr(3)
// refuses it).
constexpr uint32_t kMrAccess[] = {
    kAllMr, kAllMr & ~acc::MW_BIND, kAllMr & ~acc::LOCAL_READ,
    acc::LOCAL_READ | acc::REMOTE_READ | acc::MW_BIND,
    acc::REMOTE_WRITE | acc::REMOTE_ATOMIC | acc::MW_BIND};
// Window access: each right, zero-based, a local flag, none.
constexpr uint32_t kMwAccess[] = {acc::REMOTE_READ, acc::REMOTE_WRITE | acc::REMOTE_ATOMIC,
                                  acc::REMOTE_READ | acc::ZERO_BASED,
                                  acc::REMOTE_READ | acc::LOCAL_WRITE, 0};
// Ranges in quarters of what they lie in (b0 for an MR, the MR for a
// window): the whole, the middle half, and one byte past the end (refused).
struct Range {
  uint64_t q_off, q_len;
  int64_t extra;  // bytes added to the length
};
constexpr Range kMrRanges[] = {{0, 4, 0}, {1, 2, 0}, {2, 2, 1}};
constexpr Range kMwRanges[] = {{0, 4, 0}, {1, 2, 0}, {2, 2, 1}};
// Every QP state of the vocabulary, in its order.
constexpr uint8_t kQpStates[] = {
#define X(n) static_cast<uint8_t>(QpState::k##n),
    MWC_QP_STATES(X)
#undef X
};

constexpr std::string_view kValueChoices =
    "values at the bounds the rules compare: MR over all of b0, its middle half, or one byte "
    "past its end; MR access "
    "all rights, all but MW_BIND, all but LOCAL_READ, no LOCAL_WRITE (read only), remote write "
    "without LOCAL_WRITE; windows over all of their MR, its middle half, one byte past its end, "
    "or zero-length; window access REMOTE_READ, REMOTE_WRITE|REMOTE_ATOMIC, REMOTE_READ|"
    "ZERO_BASED, REMOTE_READ|LOCAL_WRITE, none; IBV_WR_BIND_MW with the next key; QPs RC, made "
    "in RTS, modified to every state; remote accesses: any address and length (Z3)";

enum Kind { kPd, kMr, kMw, kQp };

// A state of the walk: the model, the record, and how many objects of each
// kind were made (the next one made takes the next handle).
struct Live {
  Model model;
  Ghost ghost;
  std::array<uint8_t, 4> made{};
  uint32_t node = 0;  // its path, in the walk's node list
};
struct Node {
  uint32_t parent;
  Op op;
};

Op make(OpCode c, std::initializer_list<std::pair<int, Arg>> fields) {
  Op op = default_op(c);
  for (const auto& [i, a] : fields) op.a[static_cast<size_t>(i)] = a;
  return op;
}
Arg h(uint32_t handle) { return Arg{0, handle, 0}; }
Arg v(uint64_t value) { return Arg{value, kNoHandle, 0}; }

// Returns the ops the walk tries from state `s` (handles by relation: every
// made object, and the next one).
std::vector<Op> successors(const Live& s, const Scope& sc) {
  const Model& m = s.model;
  std::vector<Op> ops;
  const auto handles = [&](Kind k, uint32_t cap, bool fresh) {
    std::vector<uint32_t> hs;
    for (uint32_t i = 0; i < s.made[k]; ++i) hs.push_back(i);
    if (fresh && s.made[k] < cap) hs.push_back(s.made[k]);
    return hs;
  };
  const auto pds = handles(kPd, sc.pd, false), mrs = handles(kMr, sc.mr, false),
             mws = handles(kMw, sc.mw, false), qps = handles(kQp, sc.qp, false);
  // Resources.
  for (uint32_t p : handles(kPd, sc.pd, true)) ops.push_back(make(OpCode::alloc_pd, {{0, h(p)}}));
  for (uint32_t p : pds) ops.push_back(make(OpCode::dealloc_pd, {{0, h(p)}}));
  for (uint32_t r : handles(kMr, sc.mr, true)) {
    if (m.mr_rkey(r)) {
      ops.push_back(make(OpCode::dereg_mr, {{0, h(r)}}));
      continue;
    }
    for (uint32_t p : pds)
      for (const Range& g : kMrRanges)
        for (uint32_t a : kMrAccess) {
          if (g.extra && a != kAllMr) continue;  // refused by range alone
          ops.push_back(make(OpCode::reg_mr, {{0, h(r)}, {1, h(p)},
                                              {2, Arg{sc.buf / 4 * g.q_off, 0, uint8_t(AddrBase::Buf)}},
                                              {3, v(sc.buf / 4 * g.q_len + static_cast<uint64_t>(g.extra))},
                                              {4, v(a)}}));
        }
  }
  for (uint32_t w : handles(kMw, sc.mw, true)) {
    if (m.mw_keys(w).rkey) {
      ops.push_back(make(OpCode::dealloc_mw, {{0, h(w)}}));
      continue;
    }
    for (uint32_t p : pds)
      for (uint64_t type : {1, 2}) ops.push_back(make(OpCode::alloc_mw, {{0, h(w)}, {1, h(p)}, {2, v(type)}}));
  }
  for (uint32_t q : handles(kQp, sc.qp, true)) {
    // A QP that is not live skips these (and a live one creation): cheap.
    if (q < s.made[kQp]) {
      ops.push_back(make(OpCode::destroy_qp, {{0, h(q)}}));
      for (uint8_t st : kQpStates) ops.push_back(make(OpCode::modify_qp, {{0, h(q)}, {1, v(st)}}));
    }
    for (uint32_t p : pds) ops.push_back(make(OpCode::create_qp, {{0, h(q)}, {1, h(p)}}));
  }
  // Binds: by each API, each QP, window and MR (or none: zero-length).
  for (uint32_t q : qps)
    for (uint32_t w : mws) {
      if (!m.mw_keys(w).rkey) continue;
      // The verbs first, DET's own last: a shortest counterexample then uses
      // what every device has where it can.
      for (OpCode c : {OpCode::bind_mw, OpCode::wr_bind_mw, OpCode::det_bind}) {
        ops.push_back(make(c, {{0, h(q)}, {1, h(w)}}));  // zero-length, no MR
        for (uint32_t r : mrs) {
          if (!m.mr_rkey(r)) continue;
          const uint64_t len = m.key_target(m.mr_rkey(r)).mr_len;
          for (const Range& g : kMwRanges)
            for (uint32_t a : kMwAccess) {
              if (g.extra && a != acc::REMOTE_READ) continue;  // refused by range alone
              ops.push_back(make(c, {{0, h(q)}, {1, h(w)}, {2, h(r)},
                                     {3, Arg{len / 4 * g.q_off, r, uint8_t(AddrBase::Mr)}},
                                     {4, v(len / 4 * g.q_len + static_cast<uint64_t>(g.extra))},
                                     {5, v(a)}}));
            }
        }
      }
    }
  // Invalidations, by the QPs' own requests and the peer's.
  for (uint32_t q : qps)
    for (uint32_t w : mws) {
      if (!m.mw_keys(w).rkey) continue;
      for (uint8_t base : {uint8_t(RkeyBase::MwCur), uint8_t(RkeyBase::MwPrev)}) {
        ops.push_back(make(OpCode::wr_local_inv, {{0, h(q)}, {1, Arg{0, w, base}}}));
        ops.push_back(make(OpCode::peer_send_inv, {{0, h(q)}, {1, Arg{0, w, base}}}));
      }
    }
  return ops;
}

// Returns the object kind op makes (its handle the next one), or -1.
int makes(const Op& op) {
  switch (op.code) {
    case OpCode::alloc_pd: return kPd;
    case OpCode::reg_mr: return kMr;
    case OpCode::alloc_mw: return kMw;
    case OpCode::create_qp: return kQp;
    default: return -1;
  }
}

// ---- the accesses, asked of Z3 ------------------------------------------------

struct Hit {
  Invariant invariant;
  std::string what;
  Op access;
};

class Prober {
 public:
  explicit Prober(SearchStats& stats)
      : x_(S::ctx().bv_const("raddr", 64)), l_(S::ctx().bv_const("len", 64)), solver_(S::ctx()),
        stats_(stats) {}

  // Returns an access the model grants and the invariants forbid in state
  // `s`, if any.
  std::optional<Hit> probe(const Live& s, uint32_t qps) {
    const Model& m = s.model;
    for (uint32_t rkey : s.ghost.keys(m))
      for (uint32_t q = 0; q < qps; ++q)
        for (uint32_t right : {acc::REMOTE_READ, acc::REMOTE_WRITE, acc::REMOTE_ATOMIC}) {
          if (!m.serves(q, right)) continue;
          ++stats_.probes;
          if (auto hit = ask(m, s.ghost, q, rkey, right)) return hit;
        }
    return std::nullopt;
  }

 private:
  std::optional<Hit> ask(const Model& m, const Ghost& g, uint32_t q, uint32_t rkey, uint32_t right) {
    const bool atomic = right == acc::REMOTE_ATOMIC;
    const z3::expr len = atomic ? S::lit(8) : l_;
    const auto c = m.check_remote<S>(q, m.qp_pd(q), rkey, x_, len, right, atomic,
                                     [&] { return m.remote_range_alt(); });
    if (c.fail != Rule::remote_ok) return std::nullopt;  // the state refuses it whatever the values
    // A zero-length request moves no byte (and the model serves it without
    // any check, IBTA C9-88): only accesses of at least one byte count.
    z3::expr granted = c.in_range && c.aligned && (atomic ? S::lit(1) == S::lit(1) : l_ != S::lit(0));
    // A provider that checks alignment when posting refuses what the
    // responder never sees (Model::remote).
    if (atomic && m.profile()[Knob::atomic_align_check] == alt::atomic_align_check::post)
      granted = granted && rules::atomic_aligned<S>(x_);
    const Grant* gr = g.grant(rkey);
    Invariant inv = Invariant::grant_inside;
    std::string what;
    z3::expr bad = granted;
    if (!gr) {
      const Ended e = g.ended(rkey);
      inv = e == Ended::mr_gone ? Invariant::dead_mr
            : e == Ended::revoked ? Invariant::revoked_nothing
                                  : Invariant::grant_inside;
      what = e == Ended::mr_gone ? "through a window whose MR was deregistered"
             : e == Ended::revoked ? "through an rkey whose binding ended"
                                   : "through an rkey nothing granted";
    } else if (gr->qp != kNoHandle && gr->qp != q) {
      inv = Invariant::type2_own_qp;
      what = fmt::format("from q{}, through a type 2 window bound to q{}", q, gr->qp);
    } else if (gr->pd != m.qp_pd(q)) {
      what = fmt::format("from q{} of PD p{}, through an rkey of PD p{}", q, m.qp_pd(q), gr->pd);
    } else if ((gr->access & right) != right) {
      what = "without the right";
    } else {
      // Inside the grant, in plain terms: [va, va+len) in [lo, lo+len).
      const z3::expr lo = S::lit(gr->zero_based ? 0 : gr->lo), glen = S::lit(gr->len);
      const z3::expr inside = z3::uge(x_, lo) && z3::ule(len, glen) && z3::ule(x_ - lo, glen - len);
      const z3::expr va = gr->zero_based ? x_ + S::lit(gr->lo) : x_;
      const z3::expr ok = atomic ? inside && (va & S::lit(7)) == S::lit(0) : inside;
      bad = granted && !ok;
      what = atomic ? "outside the grant or misaligned" : "outside the grant";
    }
    std::optional<std::pair<uint64_t, uint64_t>> xl = solve(bad);
    if (!xl) return std::nullopt;
    // The access, its address relative to what the rkey names.
    const Model::KeyTarget t = m.key_target(rkey);
    const uint32_t obj = layout::key_object(rkey).h;
    Arg addr{xl->first, kNoHandle, uint8_t(AddrBase::Raw)};
    if (t.ok && t.window)
      addr = Arg{xl->first - layout::window_base(t.zero_based, t.addr), obj, uint8_t(AddrBase::Mw)};
    else if (t.ok)
      addr = Arg{xl->first - t.mr_iova, obj, uint8_t(AddrBase::Mr)};
    Arg key{0, rkey, uint8_t(RkeyBase::Raw)};
    if (t.ok && t.window && m.mw_keys(obj).cur == rkey) key = Arg{0, obj, uint8_t(RkeyBase::MwCur)};
    else if (t.ok && !t.window) key = Arg{0, obj, uint8_t(RkeyBase::Mr)};
    Op op = atomic ? make(OpCode::peer_fetch_add, {{0, h(q)}, {1, key}, {2, addr}})
                   : make(right == acc::REMOTE_READ ? OpCode::peer_read : OpCode::peer_write,
                          {{0, h(q)}, {1, key}, {2, addr}, {3, v(xl->second)}});
    return Hit{inv,
               fmt::format("{} of {} bytes at {:#x} granted {}", atomic ? "an atomic" : right == acc::REMOTE_READ ? "a read" : "a write",
                           atomic ? 8 : xl->second, xl->first, what),
               op};
  }

  // Returns values of (raddr, len) satisfying `bad`, or none; asked once
  // per distinct formula.
  std::optional<std::pair<uint64_t, uint64_t>> solve(const z3::expr& bad) {
    const std::string key = bad.to_string();
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
    ++stats_.solver_calls;
    solver_.push();
    // Lengths a verb can carry (a remote access's is 32 bits).
    solver_.add(bad && z3::ule(l_, S::lit(0xffffffffull)));
    std::optional<std::pair<uint64_t, uint64_t>> r;
    if (solver_.check() == z3::sat) {
      const z3::model mo = solver_.get_model();
      r = std::pair{mo.eval(x_, true).get_numeral_uint64(), mo.eval(l_, true).get_numeral_uint64()};
    }
    solver_.pop();
    return cache_[key] = r;
  }

  z3::expr x_, l_;
  z3::solver solver_;
  SearchStats& stats_;
  std::unordered_map<std::string, std::optional<std::pair<uint64_t, uint64_t>>> cache_;
};

// A 128-bit fingerprint of a state: two XXH64s of its bytes.
struct Print {
  uint64_t a, b;
  bool operator==(const Print&) const = default;
};
struct PrintHash {
  size_t operator()(const Print& p) const { return p.a; }
};

}  // namespace

std::string parse_scope(std::string_view text, Scope& s) {
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) return fmt::format("'{}' is not NAME=N", part);
    const std::string_view name = part.substr(0, eq), num = part.substr(eq + 1);
    uint32_t n = 0;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc{} || end != num.data() + num.size() || n > 4)
      return fmt::format("'{}': the count must be a number from 0 to 4", part);
    if (name == "pd") s.pd = n;
    else if (name == "mr") s.mr = n;
    else if (name == "mw") s.mw = n;
    else if (name == "qp") s.qp = n;
    else return fmt::format("'{}': no such kind (pd, mr, mw, qp)", name);
  }
  return {};
}

std::string scope_text(const Scope& s) {
  return fmt::format("pd={},mr={},mw={},qp={}", s.pd, s.mr, s.mw, s.qp);
}

std::string_view value_choices() { return kValueChoices; }

SearchResult search_traces(const Profile& p, ProfileId judge, int k, const Scope& sc,
                           const SearchProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  Sym::Fresh fresh;  // same queries, same models: the search is deterministic
  SearchResult res;
  SearchStats& st = res.stats;
  Prober prober(st);
  const Caps caps{1, sc.pd, sc.mr, sc.mw, sc.qp};
  std::vector<Node> nodes{{0, make(OpCode::buf, {{0, h(0)}, {1, v(sc.buf)}})}};
  std::unordered_set<Print, PrintHash> seen;
  std::vector<Live> level;
  {
    Live root{Model(p), Ghost{}, {}, 0};
    root.model.reset(caps);
    root.ghost.reset(caps);
    const Model empty = root.model;
    root.ghost.step(nodes[0].op, empty, root.model, root.model.step(nodes[0].op), p);
    level.push_back(std::move(root));
  }
  const auto path = [&](uint32_t node) {
    std::vector<Op> ops;
    for (uint32_t n = node; n != 0; n = nodes[n].parent) ops.push_back(nodes[n].op);
    ops.push_back(nodes[0].op);
    return std::vector<Op>(ops.rbegin(), ops.rend());
  };
  const auto record = [&](Invariant inv, std::string what, std::vector<Op> ops) {
    auto& slot = res.cex[static_cast<int>(inv)];
    if (slot) return;  // breadth first: the one found first is a shortest
    Trace t;
    t.caps = caps;
    t.ops = std::move(ops);
    const size_t verbs = t.ops.size() - 1;  // b0 is no verb
    // A work request's verdict is its completion: read it.
    if (op_desc(t.ops.back().code).kind == OpKind::Post)
      t.ops.push_back(make(OpCode::poll_cq, {{0, h(t.ops.back().a[0].h)}}));
    // The yardstick's outcomes, and a clause for each profile that differs
    // (so the trace checks under every profile, and on a device says which
    // reading it follows).
    const auto theirs = run_model(t, profile(judge));
    std::vector<std::vector<Outcome>> each;
    for (int q = 0; q < kProfileCount; ++q) each.push_back(run_model(t, profile(static_cast<ProfileId>(q))));
    for (uint32_t i = 0; i < t.ops.size(); ++i) {
      t.expects.push_back({i, true, 0, exact(theirs[i])});
      std::vector<bool> done(kProfileCount);
      for (int q = 0; q < kProfileCount; ++q) {
        if (done[q] || each[q][i] == theirs[i]) continue;
        uint8_t mask = 0;  // every profile with this same outcome
        for (int r = q; r < kProfileCount; ++r)
          if (!done[r] && each[r][i] == each[q][i]) mask |= static_cast<uint8_t>(1u << r), done[r] = true;
        t.expects.push_back({i, false, mask, exact(each[q][i])});
      }
    }
    t.comments.push_back({0, false, fmt::format(" {} under {}: {}", invariant_desc(inv).name, p.name, what)});
    t.comments.push_back({0, false, fmt::format(" {}", invariant_desc(inv).statement)});
    // The caps its ops name, as reading its text gives them.
    auto read = parse_text(print_text(t));
    if (auto* back = std::get_if<Trace>(&read)) t.caps = back->caps;
    slot = Counterexample{inv, std::move(what), verbs, std::move(t)};
  };
  for (int depth = 1; depth <= k; ++depth) {
    std::vector<Live> next;
    for (Live& s : level) {
      for (const Op& op : successors(s, sc)) {
        Live c{s.model, s.ghost, s.made, 0};
        const Outcome o = c.model.step(op);
        ++st.transitions;
        if (o.ret == Result::kSKIP) continue;
        const auto broke = c.ghost.step(op, s.model, c.model, o, p);
        if (const int kind = makes(op); kind >= 0 && op.a[0].h == c.made[kind]) ++c.made[kind];
        if (broke) {
          auto ops = path(s.node);
          ops.push_back(op);
          record(broke->invariant, broke->what, std::move(ops));
        }
        std::string bytes;
        c.model.append_state(bytes);
        c.ghost.append_state(bytes);
        bytes.append(reinterpret_cast<const char*>(c.made.data()), c.made.size());
        const auto span = std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        Checksum second(Hash::xxh64);
        second.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>("mwc"), 3));
        second.update(span);
        if (!seen.insert({checksum(span, Hash::xxh64), second.digest()}).second) continue;
        ++st.states;
        nodes.push_back({s.node, op});  // a path only to states not seen before
        c.node = static_cast<uint32_t>(nodes.size() - 1);
        // An access after this op is one more verb.
        if (depth < k)
          if (auto hit = prober.probe(c, sc.qp)) {
            auto ops = path(c.node);
            ops.push_back(hit->access);
            record(hit->invariant, hit->what, std::move(ops));
          }
        next.push_back(std::move(c));
      }
    }
    level = std::move(next);
    st.depth = depth;
    st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(depth, st);
  }
  return res;
}

#ifdef MWCHECK_BREAKABLE_MODEL
}  // namespace breakable
#endif
}  // namespace mwc::smt
