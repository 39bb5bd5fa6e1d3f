#include "fuzz/guide.hpp"

#include <algorithm>

#include "fuzz/mutator.hpp"
#include "refmodel/vocab.hpp"

namespace mwc::fuzz {
namespace {

// Guides share one model per thread: reset() reuses its tables.
Model& scratch_model() {
  static thread_local Model m(profile(ProfileId::verbs));
  return m;
}

constexpr uint32_t bit(size_t f) { return uint32_t{1} << f; }

// Returns whether an object of this view has an extent the rules compare
// addresses with: a buffer, an MR, a bound window.
bool has_extent(HandleKind k, const Model::ObjectView& v) {
  return v.live && (k == HandleKind::Buf || k == HandleKind::Mr || (k == HandleKind::Mw && v.bound));
}

AddrBase addr_base(HandleKind k) {
  return k == HandleKind::Buf ? AddrBase::Buf : k == HandleKind::Mr ? AddrBase::Mr : AddrBase::Mw;
}

// Returns the length op moves at its address: its len field, 8 for an
// atomic (a Remote op with an address and no len), else 0.
uint64_t op_length(const Op& op) {
  const auto& d = op_desc(op.code);
  bool addr = false;
  for (size_t f = 0; f < d.fields.size(); ++f) {
    if (d.fields[f].kind == FieldKind::U64 && d.fields[f].name == "len") return op.a[f].v;
    addr = addr || d.fields[f].kind == FieldKind::Addr;
  }
  return d.kind == OpKind::Remote && addr ? 8 : 0;
}

template <size_t N>
uint64_t pick(const uint64_t (&a)[N], Rng& rng) {
  return a[rng.below(N)];
}

}  // namespace

Guide::Guide(const Trace& t, size_t at) : caps_(t.caps), model_(scratch_model()) {
  model_.reset(caps_);
  for (size_t i = 0; i < at && i < t.ops.size(); ++i) model_.step(t.ops[i]);
}

Model::ObjectView Guide::after(const Op& op, HandleKind k, uint32_t h) const {
  // A second model per thread: assigning reuses its tables.
  static thread_local Model probe(profile(ProfileId::verbs));
  probe = model_;
  probe.step(op);
  return probe.object(k, h);
}

size_t Guide::named_objects(const Op& op, uint32_t named, Obj* out) const {
  const auto& d = op_desc(op.code);
  size_t n = 0;
  for (size_t f = 0; f < d.fields.size(); ++f) {
    if (!(named & bit(f))) continue;
    const Arg& a = op.a[f];
    const FieldKind k = d.fields[f].kind;
    if (is_handle(k) && a.h != kNoHandle) {
      out[n++] = {handle_kind(k), a.h};
    } else if (k == FieldKind::Rkey && static_cast<RkeyBase>(a.tag) != RkeyBase::Raw) {
      out[n++] = {static_cast<RkeyBase>(a.tag) == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw, a.h};
    } else if (k == FieldKind::Addr && static_cast<AddrBase>(a.tag) != AddrBase::Raw) {
      const auto b = static_cast<AddrBase>(a.tag);
      out[n++] = {b == AddrBase::Buf ? HandleKind::Buf : b == AddrBase::Mr ? HandleKind::Mr : HandleKind::Mw,
                  a.h};
    }
  }
  return n;
}

uint64_t Guide::relation(HandleKind k, uint32_t h, const Obj* named, size_t n) const {
  const auto v = object(k, h);
  const auto pd_of = [](HandleKind kind, uint32_t handle, const Model::ObjectView& o) {
    return kind == HandleKind::Pd ? (o.live ? handle : kNoHandle) : o.pd;
  };
  uint64_t r = uint64_t{v.live} | uint64_t{v.bound} << 1;
  if (k == HandleKind::Mw) r |= uint64_t{v.type == 2} << 2 | uint64_t{v.zero_based} << 3;
  if (k == HandleKind::Qp) r |= uint64_t{v.state == QpState::kRTS} << 2 | uint64_t{v.type == qpt::RC} << 3;
  if (k == HandleKind::Mr)
    r |= uint64_t{(v.access & acc::MW_BIND) != 0} << 2 | uint64_t{(v.access & acc::LOCAL_WRITE) != 0} << 3;
  const uint32_t pd = pd_of(k, h, v);
  for (size_t i = 0; i < n && i < 14; ++i) {
    const Obj& o = named[i];
    const auto ov = object(o.k, o.h);
    const bool same = o.k == k && o.h == h;
    const bool same_pd = pd != kNoHandle && pd == pd_of(o.k, o.h, ov);
    const bool owner = (k == HandleKind::Qp && o.k == HandleKind::Mw && ov.owner == h) ||
                       (k == HandleKind::Mw && o.k == HandleKind::Qp && v.owner == o.h);
    const bool lies_in = (k == HandleKind::Mw && o.k == HandleKind::Mr && v.mr == o.h) ||
                         (k == HandleKind::Mr && o.k == HandleKind::Mw && ov.mr == h);
    r |= static_cast<uint64_t>(same | same_pd << 1 | owner << 2 | lies_in << 3) << (4 + 4 * i);
  }
  return r;
}

uint32_t Guide::handle(HandleKind k, const Op& op, uint32_t named, Rng& rng) const {
  constexpr uint32_t kMax = 64;  // candidates looked at; fuzz inputs have at most 8
  const uint32_t c = std::min(cap(k), kMax);
  if (c == 0) return kNoHandle;
  Obj objs[kMaxFields];
  const size_t n = named_objects(op, named, objs);
  uint64_t rel[kMax];
  uint32_t classes = 0;
  bool any_live = false;
  for (uint32_t h = 0; h < c; ++h) any_live = any_live || object(k, h).live;
  // Bit 0 of a relation is liveness: a candidate left out is a class of its own.
  constexpr uint64_t kOut = ~uint64_t{0};
  const bool live_only = prefer_live_ && any_live && rng.chance(7, 8);
  for (uint32_t h = 0; h < c; ++h) {
    rel[h] = relation(k, h, objs, n);
    if (live_only && !(rel[h] & 1)) rel[h] = kOut;
    bool first = rel[h] != kOut;
    for (uint32_t g = 0; g < h && first; ++g) first = rel[g] != rel[h];
    classes += first;
  }
  // The chosen class is the one whose first member comes r-th.
  uint64_t want = rel[0];
  for (uint32_t h = 0, r = static_cast<uint32_t>(rng.below(classes)), seen = 0; h < c; ++h) {
    bool first = rel[h] != kOut;
    for (uint32_t g = 0; g < h && first; ++g) first = rel[g] != rel[h];
    if (first && seen++ == r) want = rel[h];
  }
  uint32_t members = 0;
  for (uint32_t h = 0; h < c; ++h) members += rel[h] == want;
  for (uint32_t h = 0, r = static_cast<uint32_t>(rng.below(members)); h < c; ++h)
    if (rel[h] == want && r-- == 0) return h;
  return 0;
}

Arg Guide::rkey(const Op& op, uint32_t named, Rng& rng) const {
  // A window or an MR, by relation; then which of its keys.
  const bool window = cap(HandleKind::Mr) == 0 || (cap(HandleKind::Mw) > 0 && rng.chance(3, 4));
  const HandleKind k = window ? HandleKind::Mw : HandleKind::Mr;
  const uint32_t h = handle(k, op, named, rng);
  if (h == kNoHandle) return Arg{0, static_cast<uint32_t>(rng.next()), static_cast<uint8_t>(RkeyBase::Raw)};
  const uint64_t r = rng.below(16);
  if (!window) return Arg{r < 12 ? 0u : 1u, h, static_cast<uint8_t>(RkeyBase::Mr)};
  if (r < 8) return Arg{0, h, static_cast<uint8_t>(RkeyBase::MwCur)};           // current
  if (r < 11) return Arg{0, h, static_cast<uint8_t>(RkeyBase::MwPrev)};         // previous
  if (r < 14) return Arg{r < 13 ? 1u : 255u, h, static_cast<uint8_t>(RkeyBase::MwCur)};  // guessed
  return Arg{0, model_.mw_keys(h).rkey, static_cast<uint8_t>(RkeyBase::Raw)};  // the device's own
}

Arg Guide::access(const Op& op, size_t f, uint32_t named, Rng& rng) const {
  // The MR the op names, whose access a window's is judged against.
  Obj objs[kMaxFields];
  const size_t n = named_objects(op, named, objs);
  const Model::ObjectView* mr = nullptr;
  Model::ObjectView mv;
  bool window = false;
  for (size_t i = 0; i < n; ++i) {
    if (objs[i].k == HandleKind::Mr && !mr) mv = object(HandleKind::Mr, objs[i].h), mr = &mv;
    window = window || objs[i].k == HandleKind::Mw;
  }
  // Returns the class of a flag set: which rule template judges it how.
  const Profile& p = model_.profile();
  const auto judged = [&](uint32_t a) -> uint32_t {
    if (!window)
      return uint32_t{rules::mr_access_valid<Concrete>(a)} | uint32_t{rules::mr_allows_binding<Concrete>(a)} << 1;
    uint32_t i = 0;
    for (const auto& c : rules::kBindAccessChain<Concrete>) {
      if (!c.holds(a, mr ? mr->access : 0, c.uses_knob ? p[c.knob] : 0)) return i;
      ++i;
    }
    return i;
  };
  constexpr int kTries = 12;
  uint32_t cand[kTries], cls[kTries];
  const FieldDesc& fd = op_desc(op.code).fields[f];
  for (int i = 0; i < kTries; ++i) {
    cand[i] = static_cast<uint32_t>(random_field(fd, caps_, rng).v);
    if (i % 3 == 1) cand[i] &= cand[i] - 1;  // fewer flags
    if (i % 3 == 2 && mr) {  // the MR's own, and one more
      const auto names = access_flag_names();
      cand[i] &= mr->access | names[rng.below(names.size())].value;
    }
    cls[i] = judged(cand[i]);
  }
  // One class at random, then its first member (the candidates are random).
  uint32_t classes[kTries], nclasses = 0;
  for (int i = 0; i < kTries; ++i)
    if (std::find(classes, classes + nclasses, cls[i]) == classes + nclasses) classes[nclasses++] = cls[i];
  const uint32_t want = classes[rng.below(nclasses)];
  for (int i = 0; i < kTries; ++i)
    if (cls[i] == want) return Arg{cand[i], kNoHandle, 0};
  return Arg{cand[0], kNoHandle, 0};
}

Arg Guide::address(const Op& op, size_t f, uint32_t named, Rng& rng) const {
  Obj objs[kMaxFields], ext[kMaxFields + 24];
  size_t n = 0;
  const size_t nn = named_objects(op, named, objs);
  for (size_t i = 0; i < nn; ++i)
    if (has_extent(objs[i].k, object(objs[i].k, objs[i].h))) ext[n++] = objs[i];
  if (n == 0 || rng.chance(1, 4)) {  // every extent the state knows
    n = 0;
    for (HandleKind k : {HandleKind::Buf, HandleKind::Mr, HandleKind::Mw})
      for (uint32_t h = 0; h < cap(k) && h < 8; ++h)
        if (has_extent(k, object(k, h))) ext[n++] = {k, h};
  }
  if (n == 0) return random_field(op_desc(op.code).fields[f], caps_, rng);
  const Obj e = ext[rng.below(n)];
  const auto v = object(e.k, e.h);
  const uint64_t len = op_length(op), L = v.len;
  const uint64_t offs[] = {~uint64_t{0}, 0, 1, L - 1, L, L + 1, L - len, L - len + 1};
  const uint64_t off = pick(offs, rng);
  const uint64_t r = rng.below(16);
  if (r < 11) return Arg{off, e.h, static_cast<uint8_t>(addr_base(e.k))};
  if (r < 13 && e.k == HandleKind::Mw) {  // the window's place in its MR's address space
    const auto m = object(HandleKind::Mr, v.mr);
    return Arg{v.addr - m.addr + off, v.mr, static_cast<uint8_t>(AddrBase::Mr)};
  }
  if (r < 14) return Arg{off, kNoHandle, static_cast<uint8_t>(AddrBase::Raw)};  // an offset as an address
  const uint64_t wrap[] = {0 - len, 1 - len, ~uint64_t{0}};  // the sum passes 2^64
  return Arg{pick(wrap, rng), kNoHandle, static_cast<uint8_t>(AddrBase::Raw)};
}

Arg Guide::length(const Op& op, size_t f, uint32_t named, Rng& rng) const {
  const auto& d = op_desc(op.code);
  const FieldDesc& fd = d.fields[f];
  size_t ai = f;
  for (size_t j = 0; j < f && ai == f; ++j)
    if (d.fields[j].kind == FieldKind::Addr) ai = j;
  if (ai == f || rng.chance(1, 8)) return random_field(fd, caps_, rng);
  const uint64_t a = model_.addr_of(op.a[ai]);
  Obj objs[kMaxFields];
  const size_t n = named_objects(op, named | bit(ai), objs);
  uint64_t cands[4 + 6 * kMaxFields] = {0, 1, 0 - a, 1 - a};
  size_t nc = 4;
  for (size_t i = 0; i < n; ++i) {
    const auto v = object(objs[i].k, objs[i].h);
    if (!has_extent(objs[i].k, v)) continue;
    const uint64_t end = v.addr + v.len - a;  // from the address to the extent's end
    for (uint64_t x : {end - 1, end, end + 1, v.len - 1, v.len, v.len + 1}) cands[nc++] = x;
  }
  uint64_t v = cands[rng.below(nc)];
  if (v < fd.lo) v = fd.lo;
  if (v > fd.hi) v = fd.hi;
  return Arg{v, kNoHandle, 0};
}

Arg Guide::field(const Op& op, size_t f, uint32_t named, Rng& rng) const {
  const FieldDesc& fd = op_desc(op.code).fields[f];
  named |= bit(f) - 1;
  if (is_handle(fd.kind)) {
    if (fd.mode == FieldMode::Opt && rng.chance(1, 8)) return Arg{};  // bind's mr= left out
    return Arg{0, handle(handle_kind(fd.kind), op, named & ~bit(f), rng), 0};
  }
  switch (fd.kind) {
    case FieldKind::Rkey: return rkey(op, named, rng);
    case FieldKind::Addr: return address(op, f, named, rng);
    case FieldKind::Access: return access(op, f, named, rng);
    case FieldKind::U64:
      if (fd.name == "len") return length(op, f, named, rng);
      [[fallthrough]];
    default: return random_field(fd, caps_, rng);
  }
}

void Guide::fill(Op& op, uint32_t keep, Rng& rng, uint64_t plain) const {
  const auto& d = op_desc(op.code);
  for (size_t f = 0; f < d.fields.size(); ++f) {
    if (keep & bit(f)) continue;
    // Optional numbers and flags keep their default (as people write);
    // addresses, keys, lengths, access flags and handles are the rules' own.
    const FieldDesc& fd = d.fields[f];
    const bool rules_own = is_handle(fd.kind) || fd.kind == FieldKind::Addr || fd.kind == FieldKind::Rkey ||
                           fd.kind == FieldKind::Access || fd.name == "len";
    if (fd.mode == FieldMode::Opt && !rules_own && rng.chance(plain, 4)) continue;
    op.a[f] = field(op, f, keep, rng);
  }
}

Op Guide::make(OpCode c, Rng& rng) const {
  Op op = default_op(c);
  fill(op, 0, rng);
  return op;
}

}  // namespace mwc::fuzz
