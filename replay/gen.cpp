#include "replay/gen.hpp"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>

#include "refmodel/binary_codec.hpp"
#include "refmodel/checksum.hpp"
#include "refmodel/model.hpp"
#include "refmodel/mwb_record.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::replay {

void expect_by_column(std::span<const Pattern> pats, size_t driver, std::vector<Expectation>& es) {
  es.push_back(Expectation{0, true, 0, pats[driver]});
  const size_t first = es.size();
  for (size_t c = 0; c < pats.size(); ++c) {
    if (c == driver || pats[c] == pats[driver]) continue;
    auto same = std::find_if(es.begin() + static_cast<long>(first), es.end(),
                             [&](const Expectation& e) { return e.pattern == pats[c]; });
    if (same == es.end()) same = es.insert(es.end(), Expectation{0, false, 0, pats[c]});
    same->profiles |= static_cast<uint8_t>(1u << c);
  }
}

namespace {

constexpr uint64_t kMrLen = 64 << 10;  // each MR covers its own 64 KiB of the PD's buffer
constexpr uint32_t kMrAccess =
    acc::LOCAL_READ | acc::LOCAL_WRITE | acc::REMOTE_READ | acc::REMOTE_WRITE | acc::REMOTE_ATOMIC | acc::MW_BIND;
constexpr uint32_t kMwAccess = acc::REMOTE_READ | acc::REMOTE_WRITE | acc::REMOTE_ATOMIC;
constexpr int kDriver = static_cast<int>(ProfileId::verbs);  // steers the trace under "all"

// Returns the place of `want` among an op's field names, or -1. Evaluated
// when compiling: the tables below hold numbers, no name is looked up when
// a trace is made.
constexpr int8_t index_of(std::initializer_list<std::string_view> names, std::string_view want) {
  int8_t i = 0;
  for (const auto n : names) {
    if (n == want) return i;
    ++i;
  }
  return -1;
}
#define MWC_FIELD_NAME(kind, fname, mode, use, def, lo, hi) #fname,
// Each op's field `len` and field `type`, from the op table.
constexpr int8_t kLenField[] = {
#define OP(name, bin, kind, summary) index_of({MWC_FIELDS_##name(MWC_FIELD_NAME)}, "len"),
    MWC_OPS(OP)
#undef OP
};
constexpr int8_t kTypeField[] = {
#define OP(name, bin, kind, summary) index_of({MWC_FIELDS_##name(MWC_FIELD_NAME)}, "type"),
    MWC_OPS(OP)
#undef OP
};
#undef MWC_FIELD_NAME
// Returns whether `kinds` holds `k`.
constexpr bool has(std::initializer_list<FieldKind> kinds, FieldKind k) {
  for (const auto x : kinds)
    if (x == k) return true;
  return false;
}
#define MWC_FIELD_KIND(kind, fname, mode, use, def, lo, hi) FieldKind::kind,
// Whether an op binds a window: a work request that names a window and an MR.
constexpr bool kBinds[] = {
#define OP(name, bin, kind, summary)                                                   \
  OpKind::kind == OpKind::Post && has({MWC_FIELDS_##name(MWC_FIELD_KIND)}, FieldKind::Mw) && \
      has({MWC_FIELDS_##name(MWC_FIELD_KIND)}, FieldKind::Mr),
    MWC_OPS(OP)
#undef OP
};
#undef MWC_FIELD_KIND

// Parses "name=weight,..." over `w`; returns an error or "".
std::string parse_mix(std::string_view s, std::array<uint32_t, kOpCount>& w) {
  while (!s.empty()) {
    const size_t comma = std::min(s.find(','), s.size());
    const std::string_view item = s.substr(0, comma);
    s.remove_prefix(std::min(comma + 1, s.size()));
    const size_t eq = item.find('=');
    const int c = op_from_name(item.substr(0, eq));
    uint32_t v = 0;
    if (eq == std::string_view::npos || c == kOpCount)
      return "bad --mix item '" + std::string(item) + "' (want OP=WEIGHT, OP an op name)";
    const auto val = item.substr(eq + 1);
    const auto [end, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    if (ec != std::errc() || end != val.data() + val.size() || v > 1'000'000)
      return "bad weight in --mix item '" + std::string(item) + "' (want 0..1000000)";
    w[static_cast<size_t>(c)] = v;
  }
  return "";
}

class Gen {
 public:
  Gen(const GenOptions& o, std::span<TraceSink* const> sinks)
      : o_(o), rng_(o.seed), sinks_(sinks) {}
  std::string run();

 private:
  struct Win {
    bool live = true, bound = false;
    uint32_t mr = 0, qp = 0;
    uint64_t off = 0, len = 0;
  };
  struct Reg {
    bool live = true;
    uint32_t bound = 0;
  };
  // The objects one op is about, chosen before its fields are filled.
  struct Ctx {
    uint32_t g = 0, qp = 0, mw = kNoHandle, mr = kNoHandle;
    uint64_t off = 0, len = 0;  // remote: within the target; bind: within the MR
    bool stale = false;         // use the window's previous rkey
  };

  uint64_t below(uint64_t n) { return n ? rng_() % n : 0; }
  bool chance(uint32_t permille) { return below(1000) < permille; }
  bool full() const { return emitted_ >= o_.ops; }
  uint8_t type(uint32_t w) const { return (w % o_.mws_per_pd) % 2 ? 2 : 1; }
  uint32_t group_of_mw(uint32_t w) const { return w / o_.mws_per_pd; }
  // Returns the sink of an op: its shard, by the PD of its leading handle.
  TraceSink& sink_of(const Op& op) const {
    const uint32_t h = op.a[0].h;
    const uint32_t per[kHandleKinds] = {1, 1, o_.mrs_per_pd, o_.mws_per_pd, o_.qps_per_pd};
    const uint32_t g = h / per[static_cast<int>(mwb::kAnchorKind[static_cast<int>(op.code)])];
    return *sinks_[uint64_t{g} * sinks_.size() / o_.pds];
  }
  uint32_t any_qp(uint32_t g) { return g * o_.qps_per_pd + static_cast<uint32_t>(below(o_.qps_per_pd)); }
  uint32_t any_mw(uint32_t g) { return g * o_.mws_per_pd + static_cast<uint32_t>(below(o_.mws_per_pd)); }
  uint32_t any_mr(uint32_t g) { return g * o_.mrs_per_pd + static_cast<uint32_t>(below(o_.mrs_per_pd)); }
  // Returns a window of group g satisfying ok (a few tries), or kNoHandle.
  template <class F>
  uint32_t find_mw(uint32_t g, F ok) {
    for (int i = 0; i < 8; ++i)
      if (const uint32_t w = any_mw(g); ok(wins_[w])) return w;
    return kNoHandle;
  }
  template <class F>
  uint32_t find_mr(uint32_t g, F ok) {
    for (int i = 0; i < 8; ++i)
      if (const uint32_t m = any_mr(g); ok(regs_[m])) return m;
    return kNoHandle;
  }

  Outcome emit(const Op& op);
  Op fill(OpCode c, const Ctx& x);
  std::optional<Arg> field(OpCode c, const FieldDesc& f, const Ctx& x);
  bool plan(OpCode c, Ctx& x);
  void step(OpCode c);
  void step_on(OpCode c, const Ctx& x);
  void bind(uint32_t qp, uint32_t w, uint32_t m, uint64_t off, uint64_t len);
  void poll(uint32_t qp);
  void recover(uint32_t qp);

  GenOptions o_;
  std::mt19937_64 rng_;
  std::span<TraceSink* const> sinks_;  // one per shard of the PDs
  // models_[driver_] steers the trace; under "all", models_[c] is column
  // c's, and under one profile its model gives the fallback alone.
  std::vector<Model> models_;
  bool expects_ = false;  // not "none"
  size_t driver_ = 0;
  std::vector<Win> wins_;
  std::vector<Reg> regs_;
  uint64_t emitted_ = 0;
  bool failed_ = false;  // the last op failed under some profile
  std::vector<Expectation> es_;
};

Outcome Gen::emit(const Op& op) {
  if (full()) return Outcome{};
  ++emitted_;
  es_.clear();
  Outcome drv{};
  std::vector<Pattern> pats(models_.size());
  failed_ = false;
  for (size_t i = 0; i < models_.size(); ++i) {
    const Outcome out = models_[i].step(op);
    pats[i] = exact(out);
    if (i == driver_) drv = out;
    failed_ = failed_ || (out.ret != Result::kOK && out.ret != Result::kEMPTY) ||
              (out.wc != WcStatus::kNONE && out.wc != WcStatus::kIBV_WC_SUCCESS);
  }
  if (expects_) expect_by_column(pats, driver_, es_);
  sink_of(op).op(op, es_);
  return drv;
}

// Returns the value of one field for the op's objects, or nothing to keep
// the field's default.
std::optional<Arg> Gen::field(OpCode c, const FieldDesc& f, const Ctx& x) {
  const OpDesc& d = op_desc(c);
  const bool remote = d.kind == OpKind::Remote;
  const bool bind = kBinds[static_cast<int>(c)];
  const int at = static_cast<int>(&f - d.fields.data());
  switch (f.kind) {
    case FieldKind::Buf: return Arg{0, x.g, 0};
    case FieldKind::Pd: return Arg{0, x.g, 0};
    case FieldKind::Mr: return Arg{0, x.mr, 0};
    case FieldKind::Mw: return Arg{0, x.mw, 0};
    case FieldKind::Qp: return Arg{0, x.qp, 0};
    case FieldKind::Access: return Arg{bind ? kMwAccess : kMrAccess, kNoHandle, 0};
    case FieldKind::SendFlags: return Arg{sendf::SIGNALED, kNoHandle, 0};
    case FieldKind::ReregFlags: return Arg{rereg::CHANGE_ACCESS, kNoHandle, 0};
    case FieldKind::Rkey:
      if (x.mw == kNoHandle) return Arg{0, x.mr, static_cast<uint8_t>(RkeyBase::Mr)};
      return Arg{0, x.mw, static_cast<uint8_t>(x.stale ? RkeyBase::MwPrev : RkeyBase::MwCur)};
    case FieldKind::Addr:
      if (remote && x.mw != kNoHandle) return Arg{x.off, x.mw, static_cast<uint8_t>(AddrBase::Mw)};
      if (remote || bind) return Arg{x.off, x.mr, static_cast<uint8_t>(AddrBase::Mr)};
      return Arg{(x.mr % o_.mrs_per_pd) * kMrLen, x.g, static_cast<uint8_t>(AddrBase::Buf)};
    case FieldKind::U64:
      if (at == kLenField[static_cast<int>(c)] && (remote || bind || d.kind == OpKind::Post)) return Arg{x.len};
      if (at == kLenField[static_cast<int>(c)]) return Arg{c == OpCode::buf ? o_.mrs_per_pd * kMrLen : kMrLen};
      if (at == kTypeField[static_cast<int>(c)]) return Arg{type(x.mw)};
      if (f.def == 0 && f.hi == MWC_U64_MAX) return Arg{rng_()};  // atomics' operands
      return std::nullopt;
    default: return std::nullopt;  // enums and key bytes: their defaults
  }
}

Op Gen::fill(OpCode c, const Ctx& x) {
  Op op = default_op(c);
  const OpDesc& d = op_desc(c);
  for (size_t f = 0; f < d.fields.size(); ++f)
    if (const auto a = field(c, d.fields[f], x)) op.a[f] = *a;
  return op;
}

// Chooses the objects of an op of code c; returns false if none fit.
bool Gen::plan(OpCode c, Ctx& x) {
  x.g = static_cast<uint32_t>(below(o_.pds));
  x.qp = any_qp(x.g);
  const bool err = chance(o_.error_permille);
  const auto bound = [](const Win& w) { return w.live && w.bound; };
  const auto bound2 = [&](const Win& w) {
    return bound(w) && type(static_cast<uint32_t>(&w - wins_.data())) == 2;
  };
  switch (op_desc(c).kind) {
    case OpKind::Remote: {
      const bool atomic = c == OpCode::peer_fetch_add || c == OpCode::peer_cmp_swap;
      if (c == OpCode::peer_send_inv || !chance(150)) {
        x.mw = c == OpCode::peer_send_inv ? find_mw(x.g, bound2) : find_mw(x.g, bound);
      }
      if (x.mw != kNoHandle) {
        const Win& w = wins_[x.mw];
        if (type(x.mw) == 2 && !err) x.qp = w.qp;
        x.len = atomic ? 8 : 1 + below(std::min<uint64_t>(w.len, 4096));
        x.off = below(w.len - x.len + 1) & (atomic ? ~7ull : ~0ull);
        x.stale = err && chance(500);
        if (err && !x.stale) x.off = w.len;  // just past the window's end
      } else {
        x.mr = find_mr(x.g, [](const Reg& r) { return r.live; });
        if (x.mr == kNoHandle) return false;
        x.len = atomic ? 8 : 1 + below(4096);
        x.off = below(kMrLen - x.len + 1) & (atomic ? ~7ull : ~0ull);
        if (err) x.off = kMrLen;
      }
      return true;
    }
    case OpKind::Post:
      if (c == OpCode::wr_send) {
        x.len = 64;
        return true;
      }
      if (c == OpCode::wr_local_inv) {
        x.mw = find_mw(x.g, bound2);
        if (x.mw != kNoHandle && !err) x.qp = wins_[x.mw].qp;
        return x.mw != kNoHandle;
      }
      // Type 1 windows rebind; type 2 ones bind when free (invalidated).
      x.mw = find_mw(x.g, [&](const Win& w) {
        const bool t2 = type(static_cast<uint32_t>(&w - wins_.data())) == 2;
        return w.live && t2 == (c == OpCode::wr_bind_mw) && !(t2 && w.bound);
      });
      x.mr = find_mr(x.g, [](const Reg& r) { return r.live; });
      x.len = 4096 * (1 + below(8));
      x.off = below(kMrLen - x.len + 1) & ~63ull;
      if (err) x.len = kMrLen + 64;  // larger than the MR
      return x.mw != kNoHandle && x.mr != kNoHandle;
    default:
      if (c == OpCode::alloc_mw || c == OpCode::dealloc_mw) {
        const bool want = c == OpCode::dealloc_mw;
        x.mw = find_mw(x.g, [&](const Win& w) { return w.live == want; });
        return x.mw != kNoHandle;
      }
      x.mr = find_mr(x.g, [&](const Reg& r) {
        return c == OpCode::reg_mr ? !r.live : (r.live && (r.bound == 0 || err));
      });
      return x.mr != kNoHandle;
  }
}

void Gen::poll(uint32_t qp) {
  Ctx x;
  x.qp = qp;
  emit(fill(OpCode::poll_cq, x));
  if (failed_) recover(qp);
}

// Brings a QP that saw an error back to RTS, its peer connected anew.
void Gen::recover(uint32_t qp) {
  for (const QpState s : {QpState::kRESET, QpState::kINIT, QpState::kRTR, QpState::kRTS}) {
    Op op = default_op(OpCode::modify_qp);
    op.a[0].h = qp;
    op.a[1].v = static_cast<uint64_t>(s);
    emit(op);
  }
}

void Gen::bind(uint32_t qp, uint32_t w, uint32_t m, uint64_t off, uint64_t len) {
  Ctx x;
  x.g = group_of_mw(w);
  x.qp = qp, x.mw = w, x.mr = m, x.off = off, x.len = len;
  const OpCode c = type(w) == 1 ? OpCode::bind_mw : OpCode::wr_bind_mw;
  const Outcome o = emit(fill(c, x));
  if (o.rule == Rule::bind_ok) {
    Win& win = wins_[w];
    if (win.bound) --regs_[win.mr].bound;
    win = Win{true, true, m, qp, off, len};
    ++regs_[m].bound;
  }
  if (failed_) recover(qp);
  else poll(qp);
}

void Gen::step(OpCode c) {
  Ctx x;
  if (!plan(c, x)) return;
  if (c == OpCode::bind_mw || c == OpCode::wr_bind_mw) return bind(x.qp, x.mw, x.mr, x.off, x.len);
  const Outcome o = emit(fill(c, x));
  const auto unbind = [&](uint32_t w) {
    if (wins_[w].bound) --regs_[wins_[w].mr].bound;
    wins_[w].bound = false;
  };
  const bool post_failed = failed_;
  switch (c) {
    case OpCode::reg_mr: regs_[x.mr].live = regs_[x.mr].live || o.ret == Result::kOK; break;
    case OpCode::alloc_mw: wins_[x.mw].live = wins_[x.mw].live || o.ret == Result::kOK; break;
    case OpCode::dereg_mr:  // churn: registered again at once
      if (o.ret == Result::kOK) regs_[x.mr].live = false, step_on(OpCode::reg_mr, x);
      break;
    case OpCode::dealloc_mw:  // churn: allocated again at once, bound later
      if (o.ret == Result::kOK) unbind(x.mw), wins_[x.mw].live = false, step_on(OpCode::alloc_mw, x);
      break;
    case OpCode::peer_send_inv:
    case OpCode::wr_local_inv:
      if (o.rule == Rule::inv_ok) unbind(x.mw);
      break;
    default: break;
  }
  if (op_desc(c).kind == OpKind::Post) {
    if (post_failed) recover(x.qp);
    else poll(x.qp);
  } else if (op_desc(c).kind == OpKind::Remote && post_failed) {
    recover(x.qp);
  }
}

// Runs op c on the objects of x, and notes what it creates.
void Gen::step_on(OpCode c, const Ctx& x) {
  const Outcome o = emit(fill(c, x));
  if (c == OpCode::reg_mr) regs_[x.mr].live = o.ret == Result::kOK;
  if (c == OpCode::alloc_mw) wins_[x.mw].live = o.ret == Result::kOK;
}

// Returns how many objects of each kind o asks for.
std::array<uint64_t, kHandleKinds> objects(const GenOptions& o) {
  return {o.pds, o.pds, uint64_t{o.pds} * o.mrs_per_pd, uint64_t{o.pds} * o.mws_per_pd,
          uint64_t{o.pds} * o.qps_per_pd};
}

// Sets the weights of the ops under o.mix and their total; returns the
// error, or "".
std::string weights(const GenOptions& o, std::array<uint32_t, kOpCount>& weight, uint64_t& total) {
  weight = {};
  if (auto e = parse_mix(kDefaultMix, weight); !e.empty()) return e;
  if (auto e = parse_mix(o.mix, weight); !e.empty()) return e;
  total = 0;
  for (const uint32_t w : weight) total += w;
  return total == 0 ? "--mix leaves every op at weight 0" : "";
}

std::string Gen::run() {
  if (auto e = check_options(o_, sinks_.size()); !e.empty()) return e;
  std::array<uint32_t, kOpCount> weight{};
  uint64_t total = 0;
  weights(o_, weight, total);
  Caps caps;
  for (int k = 0; k < kHandleKinds; ++k) caps[k] = static_cast<uint32_t>(objects(o_)[k]);
  if (o_.expect == "all") {
    for (int c = 0; c < kProfileCount; ++c) models_.emplace_back(profile(static_cast<ProfileId>(c)));
    driver_ = kDriver;
    expects_ = true;
  } else if (o_.expect == "none") {
    models_.emplace_back(profile(ProfileId::verbs));
  } else {
    std::string err;
    models_.emplace_back(*parse_profile(o_.expect, err));
    expects_ = true;
  }
  for (auto& m : models_) m.reset(caps);
  wins_.assign(caps[3], Win{});
  regs_.assign(caps[2], Reg{});
  for (TraceSink* s : sinks_) s->begin(caps);

  // Every PD with its buffer, MRs, windows and QPs; every window bound.
  for (uint32_t g = 0; g < o_.pds; ++g) {
    Ctx x;
    x.g = g;
    emit(fill(OpCode::buf, x));
    emit(fill(OpCode::alloc_pd, x));
    for (uint32_t i = 0; i < o_.mrs_per_pd; ++i) x.mr = g * o_.mrs_per_pd + i, emit(fill(OpCode::reg_mr, x));
    for (uint32_t i = 0; i < o_.mws_per_pd; ++i) x.mw = g * o_.mws_per_pd + i, emit(fill(OpCode::alloc_mw, x));
    for (uint32_t i = 0; i < o_.qps_per_pd; ++i) x.qp = g * o_.qps_per_pd + i, emit(fill(OpCode::create_qp, x));
  }
  for (uint32_t w = 0; w < caps[3] && !full(); ++w) {
    const uint32_t g = group_of_mw(w);
    const uint64_t len = 4096 * (1 + below(8));
    bind(any_qp(g), w, any_mr(g), below(kMrLen - len + 1) & ~63ull, len);
  }
  // Then ops drawn by weight.
  while (!full()) {
    uint64_t r = below(total);
    int c = 0;
    while (r >= weight[static_cast<size_t>(c)]) r -= weight[static_cast<size_t>(c++)];
    step(static_cast<OpCode>(c));
  }
  bool written = true;
  for (TraceSink* s : sinks_) written = s->end() && written;
  return written ? "" : "cannot write the trace";
}

// Streams the trace in chunks; the trailer, written last, counts its ops
// and checksums every byte before it, so no chunk is held back.
class BinarySink final : public TraceSink {
 public:
  explicit BinarySink(std::FILE* f) : f_(f) {}
  void begin(const Caps& caps) override { mwb::encode_header(caps, 0, buf_, kMwbVersion); }
  void op(const Op& op, const std::vector<Expectation>& es) override {
    mwb::encode_op_with(op, es, buf_, kMwbVersion);
    ++ops_;
    if (buf_.size() >= (1u << 20)) flush();
  }
  bool end() override {
    sum_.update(buf_);
    encode_trailer({ops_, sum_.digest()}, buf_);  // no comments: an empty string table
    write();
    return ok_ && std::fflush(f_) == 0;
  }

 private:
  void flush() {
    sum_.update(buf_);
    write();
  }
  void write() {
    ok_ = ok_ && std::fwrite(buf_.data(), 1, buf_.size(), f_) == buf_.size();
    buf_.clear();
  }
  std::FILE* f_;
  std::vector<uint8_t> buf_;
  Checksum sum_{trailer_hash(kMwbVersion)};
  uint64_t ops_ = 0;
  bool ok_ = true;
};

class TextSink final : public TraceSink {
 public:
  explicit TextSink(std::FILE* f) : f_(f) {}
  void begin(const Caps&) override {}
  void op(const Op& op, const std::vector<Expectation>& es) override {
    std::string line = op_to_text(op);
    if (!es.empty()) line += " => " + expectations_text(es);
    line += '\n';
    ok_ = ok_ && std::fwrite(line.data(), 1, line.size(), f_) == line.size();
  }
  bool end() override { return ok_ && std::fflush(f_) == 0; }

 private:
  std::FILE* f_;
  bool ok_ = true;
};

}  // namespace

std::string check_options(const GenOptions& o, size_t shards) {
  std::array<uint32_t, kOpCount> weight{};
  uint64_t total = 0;
  if (auto e = weights(o, weight, total); !e.empty()) return e;
  if (o.error_permille > 1000) return "errors are per mille: at most 1000";
  if (o.pds < 1 || o.mrs_per_pd < 1 || o.mws_per_pd < 1 || o.qps_per_pd < 1)
    return "every object count must be at least 1";
  for (int k = 0; k < kHandleKinds; ++k)
    if (objects(o)[k] > kMaxCap[k])
      return std::string("too many objects: a trace holds at most ") + std::to_string(kMaxCap[k]) +
             " of kind '" + kHandlePrefix[k] + "'";
  if (uint64_t{o.mrs_per_pd} * kMrLen > MWC_LEN_MAX) return "too many MRs per PD for one buffer";
  if (o.expect != "all" && o.expect != "none") {
    std::string err;
    if (!parse_profile(o.expect, err)) return "--expect: " + err;
  }
  if (shards < 1 || shards > o.pds) return "want between 1 shard and one per PD";
  return "";
}

std::unique_ptr<TraceSink> binary_sink(std::FILE* f) { return std::make_unique<BinarySink>(f); }
std::unique_ptr<TraceSink> text_sink(std::FILE* f) { return std::make_unique<TextSink>(f); }

std::string generate(const GenOptions& o, std::span<TraceSink* const> shards) {
  return Gen(o, shards).run();
}
std::string generate(const GenOptions& o, TraceSink& sink) {
  TraceSink* const one[] = {&sink};
  return generate(o, one);
}

}  // namespace mwc::replay
