#include "fuzz/mutator.hpp"

#include <algorithm>
#include <iterator>

#include "fuzz/fragments.hpp"
#include "fuzz/guide.hpp"
#include "refmodel/vocab.hpp"

namespace mwc::fuzz {
namespace {

template <class T, size_t N>
T pick(const T (&a)[N], Rng& rng) {
  return a[rng.below(N)];
}

// Sizes and offsets around the edges the corpus's buffers (4096 bytes) and
// windows have.
constexpr uint64_t kSizes[] = {0, 1, 7, 8, 16, 64, 128, 512, 1024, 2048, 3584, 4088, 4095, 4096, 4097, 8192};

uint64_t random_u64(const FieldDesc& f, Rng& rng) {
  uint64_t v;
  const uint64_t r = rng.below(20);
  // A field with a small range is an enumeration (a window type, a flag):
  // its first values are the ones that mean something.
  if (f.hi - f.lo < 256 && r < 12) v = f.lo + rng.below(4);
  else if (r < 9) v = pick(kSizes, rng);
  else if (r < 12) v = rng.below(4);  // window types, flags, small counts
  else if (r < 14) v = f.def;
  else if (r < 16) v = f.lo;
  else if (r < 18) v = f.hi;
  else v = rng.next();
  if (v < f.lo || v > f.hi) v = f.lo + (f.hi - f.lo == ~uint64_t{0} ? v : v % (f.hi - f.lo + 1));
  return v;
}

uint32_t random_flags(std::span<const NamedValue> table, Rng& rng) {
  uint32_t v = 0;
  for (const auto& n : table)
    if (rng.chance(1, 2)) v |= n.value;
  return v;
}

uint32_t handle(HandleKind k, const Caps& caps, Rng& rng) {
  return static_cast<uint32_t>(rng.below(caps[static_cast<int>(k)]));
}

}  // namespace

Arg random_field(const FieldDesc& f, const Caps& caps, Rng& rng) {
  Arg a;
  if (is_handle(f.kind)) {
    // An optional handle (bind's mr=) is sometimes left out.
    if (f.mode == FieldMode::Opt && rng.chance(1, 6)) return a;
    a.h = handle(handle_kind(f.kind), caps, rng);
    return a;
  }
  switch (f.kind) {
    case FieldKind::U64: a.v = random_u64(f, rng); break;
    case FieldKind::Access: a.v = random_flags(access_flag_names(), rng); break;
    case FieldKind::SendFlags: a.v = random_flags(send_flag_names(), rng); break;
    case FieldKind::ReregFlags: a.v = random_flags(rereg_flag_names(), rng); break;
    case FieldKind::QpType: {
      const auto t = qp_type_names();
      a.v = rng.chance(2, 3) ? f.def : t[rng.below(t.size())].value;
      break;
    }
    case FieldKind::QpState: {
      const auto s = qp_state_names();
      a.v = rng.chance(1, 2) ? f.def : s[rng.below(s.size())].value;
      break;
    }
    case FieldKind::Addr: {
      const uint64_t r = rng.below(10);
      const auto base = r < 4 ? AddrBase::Buf : r < 6 ? AddrBase::Mr : r < 9 ? AddrBase::Mw : AddrBase::Raw;
      a.tag = static_cast<uint8_t>(base);
      a.h = base == AddrBase::Raw ? kNoHandle
            : handle(base == AddrBase::Buf ? HandleKind::Buf
                     : base == AddrBase::Mr ? HandleKind::Mr : HandleKind::Mw, caps, rng);
      a.v = base == AddrBase::Raw ? rng.next() : pick(kSizes, rng);
      if (base != AddrBase::Raw && rng.chance(1, 8)) a.v = ~a.v + 1;  // before the base
      break;
    }
    case FieldKind::Rkey: {
      const uint64_t r = rng.below(20);
      const auto base = r < 10 ? RkeyBase::MwCur : r < 13 ? RkeyBase::MwPrev : r < 19 ? RkeyBase::Mr : RkeyBase::Raw;
      a.tag = static_cast<uint8_t>(base);
      if (base == RkeyBase::Raw) {
        a.h = static_cast<uint32_t>(rng.next());
      } else {
        a.h = handle(base == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw, caps, rng);
        a.v = rng.chance(1, 8) ? rng.below(3) : 0;  // guessed neighbouring keys
      }
      break;
    }
    case FieldKind::Key:
      a.tag = static_cast<uint8_t>(rng.chance(7, 8) ? KeyBase::Rel : KeyBase::Abs);
      a.v = a.tag == static_cast<uint8_t>(KeyBase::Rel) ? (rng.chance(3, 4) ? 1 : rng.below(256))
                                                        : rng.below(256);
      break;
    default: break;
  }
  return a;
}

Op random_op(const Caps& caps, Rng& rng) {
  Op op = default_op(static_cast<OpCode>(rng.below(kOpCount)));
  const auto& d = op_desc(op.code);
  for (size_t f = 0; f < d.fields.size(); ++f) {
    // Optional fields keep their default half of the time, as people write.
    if (d.fields[f].mode == FieldMode::Opt && rng.chance(1, 2)) continue;
    op.a[f] = random_field(d.fields[f], caps, rng);
  }
  return op;
}

void mutate(Trace& t, Rng& rng, size_t max_ops) {
  auto& ops = t.ops;
  const uint64_t edits = 1 + rng.below(4);
  for (uint64_t e = 0; e < edits; ++e) {
    const auto at = [&](size_t extra) { return static_cast<std::ptrdiff_t>(rng.below(ops.size() + extra)); };
    // Half the edits know the state (fuzz/guide.hpp): values at its bounds,
    // handles by relation, whole scenarios; the others are blind.
    switch (ops.empty() ? (rng.chance(1, 2) ? 0 : 8) : rng.below(12)) {
      case 0:  // append a new op: it finds the state the trace built
      case 1:  // or insert it anywhere
        if (ops.size() < max_ops) {
          const auto to = rng.chance(1, 2) ? std::ssize(ops) : at(1);
          ops.insert(ops.begin() + to, random_op(t.caps, rng));
        }
        break;
      case 2: {  // delete a run of one to four ops
        const auto from = at(0);
        const auto n = std::min<std::ptrdiff_t>(1 + rng.below(4), std::ssize(ops) - from);
        ops.erase(ops.begin() + from, ops.begin() + from + n);
        break;
      }
      case 3:  // duplicate an op somewhere
        if (ops.size() < max_ops) {
          const Op op = ops[at(0)];
          const auto to = at(1);
          ops.insert(ops.begin() + to, op);
        }
        break;
      case 4: {  // swap two ops
        const auto i = at(0), j = at(0);
        std::swap(ops[i], ops[j]);
        break;
      }
      case 5: {  // tweak one field
        Op& op = ops[at(0)];
        const auto& d = op_desc(op.code);
        if (d.fields.empty()) break;
        const size_t f = rng.below(d.fields.size());
        op.a[f] = random_field(d.fields[f], t.caps, rng);
        break;
      }
      case 6:
      case 7: {  // a new op whose fields the state before it chooses
        if (ops.size() >= max_ops) break;
        const auto to = rng.chance(1, 2) ? std::ssize(ops) : at(1);
        const Op op = Guide(t, static_cast<size_t>(to)).make(static_cast<OpCode>(rng.below(kOpCount)), rng);
        ops.insert(ops.begin() + to, op);
        break;
      }
      case 8:
      case 9: {  // a scenario, inserted whole
        const auto to = rng.chance(1, 2) ? std::ssize(ops) : at(1);
        const auto frag = fragment(t, static_cast<size_t>(to), max_ops - std::min(max_ops, ops.size()), rng);
        ops.insert(ops.begin() + to, frag.begin(), frag.end());
        break;
      }
      default: {  // one field chosen again, by the state before its op
        const auto i = at(0);
        const auto& d = op_desc(ops[i].code);
        if (d.fields.empty()) break;
        const size_t f = rng.below(d.fields.size());
        const Guide g(t, static_cast<size_t>(i));
        ops[i].a[f] = g.field(ops[i], f, ~(uint32_t{1} << f), rng);
        break;
      }
    }
  }
}

Trace crossover(const Trace& a, const Trace& b, Rng& rng, size_t max_ops) {
  Trace r;
  for (int k = 0; k < kHandleKinds; ++k) r.caps[k] = std::max(a.caps[k], b.caps[k]);
  const size_t cut = rng.below(a.ops.size() + 1);
  const size_t from = rng.below(b.ops.size() + 1);
  const size_t n = rng.below(b.ops.size() - from + 1);
  r.ops.assign(a.ops.begin(), a.ops.begin() + static_cast<std::ptrdiff_t>(cut));
  r.ops.insert(r.ops.end(), b.ops.begin() + static_cast<std::ptrdiff_t>(from),
               b.ops.begin() + static_cast<std::ptrdiff_t>(from + n));
  if (r.ops.size() > max_ops) r.ops.resize(max_ops);
  return r;
}

}  // namespace mwc::fuzz
