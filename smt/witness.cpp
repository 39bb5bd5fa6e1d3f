#include "smt/witness.hpp"

#include <fmt/format.h>

#include "compare/divergence.hpp"
#include "compare/run.hpp"
#include "refmodel/model.hpp"
#include "refmodel/text_codec.hpp"
#include "smt/domain.hpp"

namespace mwc::smt {
namespace {
using E = z3::expr;

constexpr uint64_t kBufLen = 8192, kMrLen = 4096;
constexpr const char* kFull = "LOCAL_READ|LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|REMOTE_ATOMIC|MW_BIND";
const uint64_t kB = layout::buf_va(0);  // buffer b0; MR m0 covers its first kMrLen bytes

// Returns values of `vars` satisfying `c` (zeros if none: the witness then
// fails its confirmation, which the tests report).
std::vector<uint64_t> solve(const E& c, const std::vector<E>& vars) {
  z3::solver s(Sym::ctx());
  s.add(c);
  std::vector<uint64_t> out(vars.size(), 0);
  if (s.check() != z3::sat) return out;
  const z3::model m = s.get_model();
  for (size_t i = 0; i < vars.size(); ++i) out[i] = m.eval(vars[i], true).get_numeral_uint64();
  return out;
}
E var(const char* n) { return Sym::ctx().bv_const(n, 64); }
E L(uint64_t v) { return Sym::lit(v); }
E between(const E& v, uint64_t lo, uint64_t hi) { return z3::ule(L(lo), v) && z3::ule(v, L(hi)); }
E no(const E& v, uint64_t bits) { return (v & L(bits)) == L(0); }

std::string flags_text(uint64_t v) {
  std::string s;
  for (const auto& f : access_flag_names())
    if (v & f.value) s += (s.empty() ? "" : "|") + std::string(f.name);
  return s.empty() ? "0" : s;
}

// The numbers the traces use, each from a Z3 model of the rule templates.
struct Numbers {
  uint64_t in_off, in_len, probe_off, probe_len;  // a window inside m0; a read every profile grants
  uint64_t out_off, out_len;                      // a window in b0 but outside m0
  uint64_t rr_off, rr_len, rr_probe_off, rr_probe_len;  // remote_range: window vs mr_only
  uint64_t acc_any, acc_zero;                     // mw_access: any only; remote_only only
  uint64_t lr_mr, lr_mw;                          // local_read: implicit only
};

Numbers numbers() {
  Numbers n{};
  const uint64_t all = all_bits(access_flag_names());
  const E o = var("o"), l = var("l"), po = var("po"), pl = var("pl");
  const E in_buf = between(o, 0, kBufLen) && between(l, 1, kBufLen - 1) &&
                   z3::ule(l, L(kBufLen) - o) && between(pl, 1, 64) && between(po, 0, kBufLen);
  const auto win_in_mr = rules::window_in_mr<Sym>(L(kB) + o, l, L(kB), L(kMrLen));
  const auto read_ok = [&](uint8_t knob, bool zb) {
    return rules::remote_range_ok<Sym>(zb ? po - o : L(kB) + po, pl, Sym::ctx().bool_val(zb),
                                       L(kB) + o, l, L(kB), L(kMrLen), knob);
  };
  using RR = std::vector<uint64_t>;
  RR v = solve(in_buf && win_in_mr && z3::ule(o, po) && read_ok(alt::remote_range::window, false) &&
                   read_ok(alt::remote_range::mr_only, false) && read_ok(alt::remote_range::window, true),
               {o, l, po, pl});
  n.in_off = v[0], n.in_len = v[1], n.probe_off = v[2], n.probe_len = v[3];
  v = solve(in_buf && !win_in_mr, {o, l});
  n.out_off = v[0], n.out_len = v[1];
  v = solve(in_buf && win_in_mr && read_ok(alt::remote_range::mr_only, false) &&
                !read_ok(alt::remote_range::window, false),
            {o, l, po, pl});
  n.rr_off = v[0], n.rr_len = v[1], n.rr_probe_off = v[2], n.rr_probe_len = v[3];

  const E a1 = var("a1"), a2 = var("a2"), mr = var("mr"), mw = var("mw");
  const E full = L(all & ~uint64_t{acc::ZERO_BASED});
  const auto valid = [&](const E& x) { return no(x, ~all | acc::ZERO_BASED); };
  const auto allowed = [&](const E& x, uint8_t k) { return rules::mw_access_allowed<Sym>(x, k); };
  n.acc_any = solve(valid(a1) && allowed(a1, alt::mw_access::any) &&
                        !allowed(a1, alt::mw_access::remote_only) &&
                        rules::mw_write_backed<Sym>(a1, full) &&
                        rules::mw_read_backed<Sym>(a1, full, alt::local_read::required),
                    {a1})[0];
  n.acc_zero = solve(valid(a2) && allowed(a2, alt::mw_access::remote_only) &&
                         !allowed(a2, alt::mw_access::zero_rejected),
                     {a2})[0];
  v = solve(valid(mr) && valid(mw) && rules::mr_access_valid<Sym>(mr) &&
                rules::mr_allows_binding<Sym>(mr) && allowed(mw, alt::mw_access::remote_only) &&
                allowed(mw, alt::mw_access::zero_rejected) && rules::mw_write_backed<Sym>(mw, mr) &&
                rules::mw_read_backed<Sym>(mw, mr, alt::local_read::implicit) &&
                !rules::mw_read_backed<Sym>(mw, mr, alt::local_read::required),
            {mr, mw});
  n.lr_mr = v[0], n.lr_mw = v[1];
  return n;
}

// Returns the body of the trace that tells the alternatives of knob k apart
// (after a common prologue), or "" for a knob with none yet.
std::string knob_body(Knob k, const Numbers& n) {
  const std::string in = fmt::format("mr=m0 addr=b0+{} len={} access=REMOTE_READ", n.in_off, n.in_len);
  const std::string out = fmt::format("mr=m0 addr=b0+{} len={} access=REMOTE_READ", n.out_off, n.out_len);
  const std::string probe = fmt::format("addr=b0+{} len={}", n.probe_off, n.probe_len);
  switch (k) {
    case Knob::bind_errors:
      return fmt::format(
          "alloc_mw w0 pd=p0\n"
          "bind_mw q0 w0 mr=m1 addr=b0+{} len={} access=REMOTE_READ  # MR of another PD\n"
          "poll_cq q0\nbind_mw q1 w0 {}  # outside the MR\npoll_cq q1\n",
          n.in_off, n.in_len, out);
    case Knob::zero_length_type2:
      return fmt::format("alloc_mw w0 pd=p0 type=2\nwr_bind_mw q0 w0 {}\nwr_bind_mw q0 w0 len=0\n"
                         "poll_cq q0\npoll_cq q0\npeer_read q0 rkey=w0 {}\n", in, probe);
    case Knob::mw_access:
      return fmt::format(
          "alloc_mw w0 pd=p0\nalloc_mw w1 pd=p0\n"
          "bind_mw q0 w0 mr=m0 addr=b0+{} len={} access={}\npoll_cq q0\n"
          "bind_mw q1 w1 mr=m0 addr=b0+{} len={} access={}\npoll_cq q1\n",
          n.in_off, n.in_len, flags_text(n.acc_any), n.in_off, n.in_len, flags_text(n.acc_zero));
    case Knob::dereg_bound:
      return fmt::format("alloc_mw w0 pd=p0\nbind_mw q0 w0 {}\ndereg_mr m0\npeer_read q1 rkey=w0 {}\n",
                         in, probe);
    case Knob::failed_bind:
      return fmt::format("alloc_mw w0 pd=p0\nbind_mw q0 w0 {}\npoll_cq q0\n"
                         "bind_mw q1 w0 {}  # outside the MR\npoll_cq q1\n"
                         "peer_read q2 rkey=w0 {}\npeer_read q0 rkey=w0.prev {}\n",
                         in, out, probe, probe);
    case Knob::type2_invalidator:
      return fmt::format("alloc_mw w0 pd=p0 type=2\nwr_bind_mw q0 w0 {}\nwr_local_inv q1 rkey=w0\n"
                         "poll_cq q1\npeer_read q0 rkey=w0 {}\n", in, probe);
    case Knob::type1_bind_wr:
      return fmt::format("alloc_mw w0 pd=p0\nwr_bind_mw q0 w0 {}\npoll_cq q0\n"
                         "peer_read q1 rkey=w0 {}\n", in, probe);
    case Knob::rkey_update:
      return fmt::format("alloc_mw w0 pd=p0\nbind_mw q0 w0 {}\npoll_cq q0\nmodify_qp q0 state=ERR\n"
                         "bind_mw q0 w0 {}  # flushed: the provider may have set mw->rkey\n"
                         "peer_read q1 rkey=w0 {}\npeer_read q2 rkey=w0.prev {}\n",
                         in, in, probe, probe);
    case Knob::remote_range:
      return fmt::format("alloc_mw w0 pd=p0\nbind_mw q0 w0 mr=m0 addr=b0+{} len={} access=REMOTE_READ\n"
                         "peer_read q1 rkey=w0 addr=b0+{} len={}\n",
                         n.rr_off, n.rr_len, n.rr_probe_off, n.rr_probe_len);
    case Knob::local_read:
      return fmt::format("reg_mr m2 pd=p0 addr=b0 len={} access={}\nalloc_mw w0 pd=p0\n"
                         "bind_mw q0 w0 mr=m2 addr=b0+{} len={} access={}\npoll_cq q0\n",
                         kMrLen, flags_text(n.lr_mr), n.in_off, n.in_len, flags_text(n.lr_mw));
    case Knob::zero_based_type1:
      return fmt::format("alloc_mw w0 pd=p0\n"
                         "bind_mw q0 w0 mr=m0 addr=b0+{} len={} access=REMOTE_READ|ZERO_BASED\n"
                         "poll_cq q0\npeer_read q1 rkey=w0 addr=w0+{} len={}\n",
                         n.in_off, n.in_len, n.probe_off - n.in_off, n.probe_len);
    case Knob::sq_full_errno:
      return "create_qp q3 pd=p0 depth=1\nwr_send q3\nwr_send q3\n";
    case Knob::post_bad_state:
      return "create_qp q3 pd=p0 state=INIT\nwr_send q3\n";
    case Knob::type2_rebind:
      return fmt::format("alloc_mw w0 pd=p0 type=2\nwr_bind_mw q0 w0 {}\nwr_bind_mw q0 w0 {}\n"
                         "poll_cq q0\npoll_cq q0\n", in, in);
    case Knob::bind_qp_pd:
      return fmt::format("create_qp q3 pd=p1\nalloc_mw w0 pd=p0\nbind_mw q3 w0 {}\npoll_cq q3\n", in);
    case Knob::transport_check:
      return "create_qp q3 pd=p0 type=UC\npeer_read q3 rkey=m0 addr=m0 len=8\n"
             "peer_write q3 rkey=m0 addr=m0 len=8\n";
    case Knob::atomic_align_check:
      return "peer_fetch_add q0 rkey=m0 addr=m0+4\npeer_fetch_add q0 rkey=m0 addr=m0+8\n";
    case Knob::zero_length_mr:  // zero bytes inside the buffer's first page
      return "reg_mr m2 pd=p0 addr=b0+1 len=0\n";
    case Knob::zero_based_mr:  // one byte past the page's start
      return "reg_mr m2 pd=p0 addr=b0+1 len=1 access=ZERO_BASED\n";
    case Knob::reset_to_err:
      return "create_qp q3 pd=p0 state=RESET\nmodify_qp q3 state=ERR\n";
    case Knob::failed_request_status:
      return fmt::format("alloc_mw w0 pd=p0\nbind_mw q0 w0 {}  # outside the MR\npoll_cq q0\n", out);
  }
  return "";
}

std::string prologue() {
  return fmt::format(
      "buf b0 len={}\nalloc_pd p0\nalloc_pd p1\nreg_mr m0 pd=p0 addr=b0 len={} access={}\n"
      "reg_mr m1 pd=p1 addr=b0 len={} access={}\n"
      "create_qp q0 pd=p0\ncreate_qp q1 pd=p0\ncreate_qp q2 pd=p0\n",
      kBufLen, kMrLen, kFull, kMrLen, kFull);
}

Trace parse(const std::string& text) {
  auto r = parse_text(text);
  return std::holds_alternative<Trace>(r) ? std::get<Trace>(std::move(r)) : Trace{};
}

// Sets the trace's expectations: a's outcome for every op, and b's where it differs.
void expect(Trace& t, ProfileId a, ProfileId b) {
  const auto oa = run_model(t, profile(a)), ob = run_model(t, profile(b));
  t.expects.clear();
  for (uint32_t i = 0; i < t.ops.size(); ++i) {
    t.expects.push_back({i, true, 0, exact(oa[i])});
    if (!(oa[i] == ob[i]))
      t.expects.push_back({i, false, static_cast<uint8_t>(1u << static_cast<int>(b)), exact(ob[i])});
  }
}

}  // namespace

std::optional<size_t> first_divergence(const Trace& t, const Profile& a, const Profile& b) {
  const auto d = mwc::first_divergence(run_model(t, a), run_model(t, b), 0);
  return d ? std::optional<size_t>(d->op) : std::nullopt;
}

bool knob_alone_diverges(const Trace& t, ProfileId a, ProfileId b, Knob k) {
  const Profile pa = profile(a), pb = profile(b);
  Profile a_with_b = pa, b_with_a = pb;
  a_with_b.v[static_cast<int>(k)] = pb[k];
  b_with_a.v[static_cast<int>(k)] = pa[k];
  return first_divergence(t, pa, a_with_b) || first_divergence(t, pb, b_with_a);
}

std::vector<Witness> distinguishing_witnesses() {
  Sym::Fresh fresh;
  const Numbers n = numbers();
  std::vector<Witness> ws;
  for (int k = 0; k < kKnobCount; ++k) {
    const Knob knob = static_cast<Knob>(k);
    const KnobDesc& kd = knob_descs()[k];
    const Trace base = parse(prologue() + knob_body(knob, n));
    for (int a = 0; a < kProfileCount; ++a) {
      for (int b = a + 1; b < kProfileCount; ++b) {
        const uint8_t va = kd.profile_value[a], vb = kd.profile_value[b];
        if (va == vb) continue;
        Witness w;
        w.a = static_cast<ProfileId>(a);
        w.b = static_cast<ProfileId>(b);
        w.knob = knob;
        const auto& pa = profile_descs()[a];
        const auto& pb = profile_descs()[b];
        w.file = fmt::format("{}-{}.{}.mwt", pa.name, pb.name, kd.name);
        w.trace = base;
        expect(w.trace, w.a, w.b);
        w.trace.comments = {
            {0, false, fmt::format(" {}: {} and {} differ on knob {}: {}", w.file, pa.name, pb.name,
                                   kd.name, kd.question)},
            {0, false, fmt::format("  {}: {}", pa.name, kd.alts[va].name)},
            {0, false, fmt::format("  {}: {}", pb.name, kd.alts[vb].name)},
            {0, false, " generated by mwcheck prove; numbers from Z3 models of the rule templates"}};
        ws.push_back(std::move(w));
      }
    }
  }
  return ws;
}

std::vector<CounterexampleTrace> counterexample_traces() {
  const std::string setup =
      fmt::format("buf b0 len=4096\nalloc_pd p0\nreg_mr m0 pd=p0 addr=b0 len=4096 access={}\n"
                  "create_qp q0 pd=p0\ncreate_qp q1 pd=p0\n", kFull);
  std::vector<CounterexampleTrace> out;
  {
    std::string t = "#  inval.rkey_fresh_forever: the key byte wraps after 256 binds.\n" + setup +
                    "alloc_mw w0 pd=p0\n"
                    "bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_READ  # rkey R, key=+1\n"
                    "poll_cq q0\npeer_read q1 rkey=w0 addr=b0 len=8  # R grants access\n"
                    "bind_mw q0 w0 len=0  # invalidates R\npoll_cq q0\n";
    for (int i = 2; i < 256; ++i) t += "bind_mw q0 w0 len=0\npoll_cq q0\n";
    t += "bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_READ  # bind 257: key=+1 again\n"
         "poll_cq q0\n"
         "peer_read q1 rkey=w0 addr=b0 len=8  # the rkey is R again: a copy kept since bind 1 "
         "grants access\n";
    Trace tr = parse(t);
    expect(tr, ProfileId::verbs, ProfileId::verbs);
    out.push_back({"inval.rkey_fresh_forever", "inval.rkey_fresh_forever.mwt", ProfileId::verbs,
                   std::move(tr)});
  }
  {
    std::string t = "#  inval.rebind_after_invalidate_fresh: a type 2 rebind may reuse the "
                    "invalidated key byte.\n" + setup +
                    "alloc_mw w0 pd=p0 type=2\n"
                    "wr_bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_READ  # rkey R\n"
                    "peer_read q0 rkey=w0 addr=b0 len=8  # R grants access\n"
                    "wr_local_inv q0 rkey=w0  # invalidates R\n"
                    "wr_bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_READ key=+0  # same byte\n"
                    "poll_cq q0\npoll_cq q0\npoll_cq q0\n"
                    "peer_read q0 rkey=w0 addr=b0 len=8  # the invalidated R grants access again\n";
    Trace tr = parse(t);
    expect(tr, ProfileId::verbs, ProfileId::verbs);
    out.push_back({"inval.rebind_after_invalidate_fresh", "inval.rebind_after_invalidate_fresh.mwt",
                   ProfileId::verbs, std::move(tr)});
  }
  {
    std::string t = "#  range.mr_only_inside_mr: under remote_range=mr_only a zero-based window's "
                    "offset wraps around 2^64.\n" + setup +
                    "alloc_mw w0 pd=p0 type=2\n"
                    "wr_bind_mw q0 w0 mr=m0 addr=b0+1024 len=64 access=REMOTE_READ|ZERO_BASED\n"
                    "poll_cq q0\n"
                    "peer_read q0 rkey=w0 addr=w0-1024 len=8  # offset 2^64-1024: wraps to b0, "
                    "before the window\n";
    Trace tr = parse(t);
    expect(tr, ProfileId::verbs, ProfileId::rxe);
    out.push_back({"range.mr_only_inside_mr", "range.mr_only_inside_mr.mwt", ProfileId::rxe,
                   std::move(tr)});
  }
  return out;
}

}  // namespace mwc::smt
