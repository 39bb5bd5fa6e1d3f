// One record of the binary trace form (.mwb), encoded and decoded. The
// whole-trace codec (binary_codec.cpp) and the streaming replay engine both
// use these, so a record means the same to both. Inline, and unrolled per op
// from the op table, because the replay engine decodes a record per op.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "refmodel/op.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/trace.hpp"

namespace mwc::mwb {

// Record codes: below kOpCount an op; then an expectation of the op before
// it; then a comment. A code byte is read modulo kCodeCount.
inline constexpr uint8_t kExpectCode = kOpCount;
inline constexpr uint8_t kCommentCode = kOpCount + 1;
inline constexpr int kCodeCount = kOpCount + 2;
inline constexpr size_t kExpectSize = 1 + 6;
inline constexpr size_t kCommentSize = 1 + 9;
inline constexpr uint8_t kAny = 0xff;  // a pattern part left out

// Returns the encoded size of a field of kind k.
constexpr size_t kind_size(FieldKind k) {
  if (is_handle(k)) return 4;
  switch (k) {
    case FieldKind::U64: return 8;
    case FieldKind::Access:
    case FieldKind::SendFlags:
    case FieldKind::ReregFlags: return 4;
    case FieldKind::QpType:
    case FieldKind::QpState: return 1;
    case FieldKind::Addr: return 13;
    case FieldKind::Rkey: return 6;
    case FieldKind::Key: return 2;
    default: return 0;
  }
}

// The record code of each code byte (the byte modulo kCodeCount).
inline constexpr std::array<uint8_t, 256> kCodeOf = [] {
  std::array<uint8_t, 256> c{};
  for (int b = 0; b < 256; ++b) c[b] = static_cast<uint8_t>(b % kCodeCount);
  return c;
}();

// Size in bytes of each record, code byte included, indexed by code.
inline constexpr std::array<uint8_t, kCodeCount> kRecordSize = [] {
  std::array<uint8_t, kCodeCount> s{};
  int i = 0;
#define MWC_SIZE(kind, fname, mode, def, lo, hi) +kind_size(FieldKind::kind)
#define OP(name, kind, summary) s[i++] = static_cast<uint8_t>(1 MWC_FIELDS_##name(MWC_SIZE));
  MWC_OPS(OP)
#undef OP
#undef MWC_SIZE
  s[kExpectCode] = kExpectSize;
  s[kCommentCode] = kCommentSize;
  return s;
}();

// The largest record.
inline constexpr size_t kMaxRecordSize = [] {
  size_t m = 0;
  for (const uint8_t s : kRecordSize) m = s > m ? s : m;
  return m;
}();

// Handle kind of each op's first field (every op leads with a handle).
inline constexpr std::array<HandleKind, kOpCount> kAnchorKind = [] {
  std::array<HandleKind, kOpCount> a{};
  int i = 0;
#define MWC_FIRST(kind, fname, mode, def, lo, hi) FieldKind::kind,
#define OP(name, kind, summary) \
  a[i++] = handle_kind(std::array{MWC_FIELDS_##name(MWC_FIRST)}[0]);
  MWC_OPS(OP)
#undef OP
#undef MWC_FIRST
  return a;
}();

namespace detail {
#define X(n, v) | (v)
inline constexpr uint32_t kAccessBits = 0 MWC_ACCESS_FLAGS(X);
inline constexpr uint32_t kSendBits = 0 MWC_SEND_FLAGS(X);
inline constexpr uint32_t kReregBits = 0 MWC_REREG_FLAGS(X);
#undef X
#define X(n, v) v,
inline constexpr uint32_t kQpTypes[] = {MWC_QP_TYPES(X)};
#undef X
#define X(n) +1
inline constexpr uint32_t kQpStates = 0 MWC_QP_STATES(X);
#undef X

inline uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  std::memcpy(&v, p, static_cast<size_t>(n));  // little-endian hosts only
  return v;
}
inline uint32_t le32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t le64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
// Returns v reduced into [lo, hi]; values already inside stay as they are.
inline uint64_t reduce(uint64_t v, uint64_t lo, uint64_t hi) {
  if (v >= lo && v <= hi) [[likely]]
    return v;
  const uint64_t span = hi - lo;
  return span == ~uint64_t{0} ? v : lo + v % (span + 1);
}
// Returns handle v reduced modulo the trace's cap of its kind.
inline uint32_t reduce_handle(uint64_t v, HandleKind k, const Caps& caps) {
  const uint32_t cap = caps[static_cast<int>(k)];
  return v < cap ? static_cast<uint32_t>(v) : static_cast<uint32_t>(v % cap);
}

// Decodes one field of kind K at p into a.
template <FieldKind K, FieldMode M, uint64_t Lo, uint64_t Hi>
inline void decode_field(const uint8_t* p, Arg& a, const Caps& caps) {
  if constexpr (is_handle(K)) {
    const uint32_t v = le32(p);
    a.h = (M == FieldMode::Opt && v == kNoHandle) ? kNoHandle : reduce_handle(v, handle_kind(K), caps);
  } else if constexpr (K == FieldKind::U64) {
    a.v = reduce(le64(p), Lo, Hi);
  } else if constexpr (K == FieldKind::QpType) {
    a.v = kQpTypes[p[0] % std::size(kQpTypes)];
  } else if constexpr (K == FieldKind::QpState) {
    a.v = p[0] % kQpStates;
  } else if constexpr (K == FieldKind::Addr) {
    a.tag = p[0] % 4;
    const auto base = static_cast<AddrBase>(a.tag);
    const HandleKind hk = base == AddrBase::Buf ? HandleKind::Buf
                          : base == AddrBase::Mr ? HandleKind::Mr : HandleKind::Mw;
    a.h = base == AddrBase::Raw ? kNoHandle : reduce_handle(le32(p + 1), hk, caps);
    a.v = le64(p + 5);
  } else if constexpr (K == FieldKind::Rkey) {
    a.tag = p[0] % 4;
    const auto base = static_cast<RkeyBase>(a.tag);
    const uint32_t h = le32(p + 1);
    if (base == RkeyBase::Raw) {
      a.h = h;
      a.v = 0;
    } else {
      a.h = reduce_handle(h, base == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw, caps);
      a.v = p[5];
    }
  } else if constexpr (K == FieldKind::Key) {
    a.tag = p[0] % 2;
    a.v = p[1];
  } else {
    constexpr uint32_t bits = K == FieldKind::Access      ? kAccessBits
                              : K == FieldKind::SendFlags ? kSendBits
                                                          : kReregBits;
    a.v = le32(p) & bits;
  }
}
}  // namespace detail

// Decodes the fields of an op record of code C (p points after the code
// byte) into op.a, at fixed offsets; fields past the op's last keep what op
// held. Every field is in the record, so no default is needed.
template <OpCode C>
inline void decode_fields(const uint8_t* p, const Caps& caps, Op& op);
#define MWC_DEC(kind, fname, mode, def, lo, hi)                                       \
  detail::decode_field<FieldKind::kind, FieldMode::mode, lo, hi>(p, op.a[i++], caps); \
  p += kind_size(FieldKind::kind);
#define OP(name, kind, summary)                                                         \
  template <>                                                                           \
  inline void decode_fields<OpCode::name>(const uint8_t* p, const Caps& caps, Op& op) { \
    int i = 0;                                                                          \
    MWC_FIELDS_##name(MWC_DEC)                                                          \
    (void)i;                                                                            \
  }
MWC_OPS(OP)
#undef OP
#undef MWC_DEC

// Decodes an op record (p points after the code byte) into op, which gets
// code c.
inline void decode_op(OpCode c, const uint8_t* p, const Caps& caps, Op& op) {
  op.code = c;
  switch (c) {
#define OP(name, kind, summary) \
  case OpCode::name:            \
    return decode_fields<OpCode::name>(p, caps, op);
    MWC_OPS(OP)
#undef OP
  }
}

// Returns the typed view (args::<name>) of an op record of that op (p
// points after the code byte): what decode_op and the view of its Op give,
// without the uniform record in between once inlined.
template <class View>
inline View decode_view(const uint8_t* p, const Caps& caps) {
  Op op;
  decode_fields<View::code>(p, caps, op);
  return View(op);
}

// Decodes the pattern of an expectation record (p points after its flags
// byte: ret, wc, wc_op, key as u16).
inline Pattern decode_pattern(const uint8_t* p) {
  constexpr size_t nres = 0
#define X(n) +1
      MWC_RESULTS(X);
  constexpr size_t nwc = 0 MWC_WC_STATUSES(X);
  constexpr size_t nop = 0 MWC_WC_OPCODES(X);
#undef X
  Pattern pt;
  if (p[0] != kAny) pt.ret = static_cast<Result>(p[0] % nres);
  if (p[1] != kAny && p[1] % nwc != 0) pt.wc = static_cast<WcStatus>(p[1] % nwc);
  if (p[2] != kAny && p[2] % nop != 0) pt.wc_op = static_cast<WcOpcode>(p[2] % nop);
  if (const auto k = detail::le(p + 3, 2); k != 0xffff) pt.key = static_cast<int16_t>(k % 256);
  if (pt.wc && !pt.ret) pt.ret = Result::kOK;
  return pt;
}

// Returns the profiles an expectation record's flags byte names (bit per
// ProfileId), or 0 for a fallback clause.
inline uint8_t expect_profiles(uint8_t flags) {
  return (flags & 0x80) ? 0 : static_cast<uint8_t>(flags & ((1u << kProfileCount) - 1));
}

// Decodes an expectation record's body (after the code byte) as one of op
// `op`. Returns false when it applies to no profile (and so is dropped).
inline bool decode_expect(const uint8_t* p, uint32_t op, Expectation& e) {
  e.op = op;
  e.fallback = (p[0] & 0x80) != 0;
  e.profiles = expect_profiles(p[0]);
  if (!e.fallback && e.profiles == 0) return false;
  e.pattern = decode_pattern(p + 1);
  return true;
}

// Returns the 5 pattern bytes of an expectation record (after its flags
// byte) as one number, little-endian.
inline uint64_t pattern_word(const uint8_t* p) { return detail::le(p, 5); }
// Returns the pattern word that encodes exact(o), as encode_expect writes
// it: an equal word decodes to a pattern that o matches.
inline uint64_t exact_word(const Outcome& o) {
  const uint64_t key = o.key == kNoKey ? 0xffff : static_cast<uint16_t>(o.key);
  const uint64_t wc = o.wc == WcStatus::kNONE ? kAny : static_cast<uint8_t>(o.wc);
  const uint64_t op = o.wc_op == WcOpcode::kNONE ? kAny : static_cast<uint8_t>(o.wc_op);
  return static_cast<uint8_t>(o.ret) | wc << 8 | op << 16 | key << 24;
}

// Returns whether expectation e of an op is kept after the op's earlier
// kept ones: one clause per profile and one fallback; a later duplicate is
// dropped. (Kept clauses name disjoint profiles, so a streaming reader
// only needs the union of their profiles and whether a fallback came.)
inline bool expectation_kept(std::span<const Expectation> earlier, const Expectation& e) {
  for (const auto& o : earlier)
    if (o.fallback ? e.fallback : (o.profiles & e.profiles) != 0) return false;
  return true;
}

// Appends the record of an op.
void encode_op(const Op& op, std::vector<uint8_t>& out);
// Appends the record of an expectation (its op is the record before).
void encode_expect(const Expectation& e, std::vector<uint8_t>& out);
// Appends a .mwb header for caps with a string table of strtab bytes.
void encode_header(const Caps& caps, uint32_t strtab, std::vector<uint8_t>& out);

}  // namespace mwc::mwb
