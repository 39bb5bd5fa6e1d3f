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

// Record codes, in memory only: below kOpCount an op (its OpCode); then an
// expectation of the op before it; then a comment; then (version 2 on) the
// compact and folded codes below. A file's code bytes are not these: each
// version maps its bytes onto them (Format, below), so the order of ops.def
// never reaches a file.
inline constexpr uint8_t kExpectCode = kOpCount;
inline constexpr uint8_t kCommentCode = kOpCount + 1;
inline constexpr int kCodeCount = kOpCount + 2;
inline constexpr size_t kExpectSize = 1 + 6;
inline constexpr size_t kCommentSize = 1 + 9;
inline constexpr uint8_t kAny = 0xff;  // a pattern part left out

// Each op's binary code (ops.def, column 2), by OpCode.
inline constexpr std::array<uint8_t, kOpCount> kMwbCodeOf = {
#define OP(name, bin, kind, summary) bin,
    MWC_OPS(OP)
#undef OP
};
// Returns whether the binary codes are unique and dense (0..kOpCount-1):
// every op its own code, every code an op.
constexpr bool mwb_codes_unique_and_dense() {
  std::array<bool, kOpCount> seen{};
  for (const uint8_t c : kMwbCodeOf) {
    if (c >= kOpCount || seen[c]) return false;
    seen[c] = true;
  }
  return true;
}
static_assert(mwb_codes_unique_and_dense(),
              "ops.def: two ops share a binary code, or a code is skipped (codes are append-only)");
// The op of each binary code.
inline constexpr std::array<OpCode, kOpCount> kOpOfMwbCode = [] {
  std::array<OpCode, kOpCount> o{};
  for (int i = 0; i < kOpCount; ++i) o[kMwbCodeOf[i]] = static_cast<OpCode>(i);
  return o;
}();

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

// Size in bytes of each record, code byte included, indexed by record code.
inline constexpr std::array<uint8_t, kCodeCount> kRecordSize = [] {
  std::array<uint8_t, kCodeCount> s{};
  int i = 0;
#define MWC_SIZE(kind, fname, mode, use, def, lo, hi) +kind_size(FieldKind::kind)
#define OP(name, bin, kind, summary) s[i++] = static_cast<uint8_t>(1 MWC_FIELDS_##name(MWC_SIZE));
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
#define MWC_FIRST(kind, fname, mode, use, def, lo, hi) FieldKind::kind,
#define OP(name, bin, kind, summary) \
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
// A state byte's QP state (the byte modulo their number), looked up: a
// modulo costs a dozen instructions on each modify_qp record.
inline constexpr auto kQpStateOfByte = [] {
  std::array<uint8_t, 256> t{};
  for (int b = 0; b < 256; ++b) t[b] = static_cast<uint8_t>(b % kQpStateCount);
  return t;
}();

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
    a.v = kQpStateOfByte[p[0]];
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
#define MWC_DEC(kind, fname, mode, use, def, lo, hi)                                       \
  detail::decode_field<FieldKind::kind, FieldMode::mode, lo, hi>(p, op.a[i++], caps); \
  p += kind_size(FieldKind::kind);
#define OP(name, bin, kind, summary)                                                    \
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
#define OP(name, bin, kind, summary) \
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
  constexpr unsigned nres = kResultCount, nwc = kWcStatusCount, nop = kWcOpcodeCount;
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
// Two loads, not a copy of 5 bytes: a copy goes through the stack, and the
// wide read after the narrow writes stalls (the replay reads one per op).
inline uint64_t pattern_word(const uint8_t* p) {
  return detail::le32(p) | uint64_t{p[4]} << 32;
}
// Returns the pattern word that encodes exact(o), as encode_expect writes
// it: an equal word decodes to a pattern that o matches.
constexpr uint64_t exact_word(const Outcome& o) {
  const uint64_t key = o.key == kNoKey ? 0xffff : static_cast<uint16_t>(o.key);
  const uint64_t wc = o.wc == WcStatus::kNONE ? kAny : static_cast<uint8_t>(o.wc);
  const uint64_t op = o.wc_op == WcOpcode::kNONE ? kAny : static_cast<uint8_t>(o.wc_op);
  return static_cast<uint8_t>(o.ret) | wc << 8 | op << 16 | key << 24;
}

// An outcome's meaning as one word in the Outcome's own layout: ret, wc and
// wc_op in bytes 0-2, key in bytes 4-5 (rule and padding masked off), so
// that the replay compares an op's outcome with its expectation by one
// load and one compare.
inline constexpr uint64_t kMeaningMask = 0x0000ffff00ffffffull;
// Returns the meaning word of o.
inline uint64_t meaning_word(const Outcome& o) {
  uint64_t w;
  std::memcpy(&w, static_cast<const void*>(&o), 8);  // little-endian hosts only
  return w & kMeaningMask;
}
// Returns the meaning word of the outcomes exact pattern word w describes
// (exact_word(o) gives meaning_word(o)): an outcome with this word matches
// the pattern w decodes to. A looser pattern's word (a part left out) is
// no outcome's, or that of outcomes it matches; either way, an outcome
// with another word is checked against the pattern itself.
constexpr uint64_t meaning_of_pattern(uint64_t w) {
  const uint64_t wc = (w >> 8) & 0xff, op = (w >> 16) & 0xff;
  return (w & 0xff) | (wc == kAny ? 0 : wc) << 8 | (op == kAny ? 0 : op) << 16 |
         ((w >> 24) & 0xffff) << 32;
}
// Returns, for m = meaning_of_pattern(w), a pattern word that decodes as w
// does.
constexpr uint64_t pattern_of_meaning(uint64_t m) {
  const uint64_t wc = (m >> 8) & 0xff, op = (m >> 16) & 0xff;
  return (m & 0xff) | (wc == 0 ? kAny : wc) << 8 | (op == 0 ? kAny : op) << 16 |
         ((m >> 32) & 0xffff) << 24;
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

// ---- version 2: compact records of the hot ops ---------------------------
//
// A peer's RDMA write or read through the current key of a window or an MR,
// at an offset into that object, is most of a realistic trace. Version 2
// gives each such op a 12-byte record, and folds the usual outcome (OK,
// IBV_WC_SUCCESS) into its code as the op's fallback expectation:
//   u8 code, u24 object (bits 0-19 the handle, bits 20-21 the key: 0 the
//   window's current key, 1 its previous key, 2 the MR's key, 3 as 0),
//   u16 qp, u16 len, u32 offset into the window (or MR)
// Codes from kCompactBase: two per hot op, bare then folded. Any other op
// keeps its full record; from kFoldBase each op has two more codes of the
// full record, its fallback expectation folded in: `OK`, or the usual
// outcome `OK IBV_WC_SUCCESS` (atomics, SEND_WITH_INV). Expectation and
// comment records are as in 1.
#define MWC_COMPACT_OPS(C) C(peer_write) C(peer_read)
inline constexpr OpCode kCompactOps[] = {
#define C(name) OpCode::name,
    MWC_COMPACT_OPS(C)
#undef C
};
inline constexpr int kCompactOpCount = static_cast<int>(std::size(kCompactOps));
inline constexpr uint8_t kCompactBase = kCodeCount;
inline constexpr uint8_t kFoldBase = kCompactBase + 2 * kCompactOpCount;
inline constexpr int kCodeCount2 = kFoldBase + 2 * kOpCount;
static_assert(kCodeCount2 <= 256);
inline constexpr size_t kCompactSize = 12;
// The remote right each compact code's op needs, by code - kCompactBase.
inline constexpr uint32_t kCompactRight[2 * kCompactOpCount] = {
#define C(name) \
  OpCode::name == OpCode::peer_write ? acc::REMOTE_WRITE : acc::REMOTE_READ, \
  OpCode::name == OpCode::peer_write ? acc::REMOTE_WRITE : acc::REMOTE_READ,
    MWC_COMPACT_OPS(C)
#undef C
};
static_assert(kCompactOpCount == 2, "kCompactRight knows peer_write and peer_read only");
inline constexpr RkeyBase kCompactKey[4] = {RkeyBase::MwCur, RkeyBase::MwPrev, RkeyBase::Mr,
                                            RkeyBase::MwCur};

// The outcome a folded compact code expects, its pattern word and its
// meaning word.
inline constexpr Outcome kUsualOutcome = access_success();
inline constexpr uint64_t kUsualWord = exact_word(kUsualOutcome);
inline constexpr uint64_t kUsualMeaning = meaning_of_pattern(kUsualWord);
// The outcome `OK` alone (a verb that succeeds at once), and its word.
inline constexpr Outcome kOkOutcome{};
inline constexpr uint64_t kOkWord = exact_word(kOkOutcome);

// Returns whether a record code is a compact one.
constexpr bool is_compact(uint8_t code) {
  return static_cast<uint8_t>(code - kCompactBase) < 2 * kCompactOpCount;
}
// Returns the op of a full record's code (below kOpCount, or folded), and
// sets `word` to the folded expectation's pattern word (or leaves it).
constexpr OpCode full_op(uint8_t code, uint64_t* word = nullptr) {
  if (code < kOpCount) return static_cast<OpCode>(code);
  if (word) *word = (code - kFoldBase) & 1 ? kUsualWord : kOkWord;
  return static_cast<OpCode>((code - kFoldBase) >> 1);
}

// ---- versions: code bytes -------------------------------------------------
//
// A version of the format pins the op codes it knows, n, and lays out its
// code bytes as: op codes 0..n-1 (ops.def, column 2); an expectation; a
// comment; from version 2, the compact codes (two per hot op, bare then
// folded), then two folded codes per op code (2k + 0 for `OK`, 2k + 1 for
// the usual outcome). Any other byte is read modulo the number of codes in
// use, so every byte string means the same trace in a version for ever: a
// new op (code n) needs a new version that knows n + 1 codes.
struct Format {
  uint16_t version;
  int op_codes;    // op codes it knows: 0..op_codes-1
  int code_count;  // code bytes in use; any other is read modulo this
  std::array<uint8_t, 256> code_of;  // a code byte's record code
  std::array<uint8_t, 256> byte_of;  // a record code's code byte (writing)
  std::array<uint8_t, 256> size;     // a record code's size, code byte included
  // A code byte's record size (size[code_of[b]]): a reader that steps from
  // record to record waits for one load per record, not two.
  std::array<uint8_t, 256> size_at;
  // Returns whether the version has a code for an op.
  constexpr bool knows(OpCode c) const { return kMwbCodeOf[static_cast<int>(c)] < op_codes; }
  // Returns whether the version has compact records (and folded codes).
  constexpr bool has_compact() const { return version >= 2; }
};
constexpr Format make_format(uint16_t version, int n) {
  Format f{version, n, 0, {}, {}, {}, {}};
  f.code_count = f.has_compact() ? 3 * n + 2 + 2 * kCompactOpCount : n + 2;
  std::array<uint8_t, 256> rec{};  // code byte (below code_count) -> record code
  for (int k = 0; k < n; ++k) rec[k] = static_cast<uint8_t>(kOpOfMwbCode[k]);
  rec[n] = kExpectCode;
  rec[n + 1] = kCommentCode;
  if (f.has_compact()) {
    for (int i = 0; i < 2 * kCompactOpCount; ++i) rec[n + 2 + i] = static_cast<uint8_t>(kCompactBase + i);
    const int fold = n + 2 + 2 * kCompactOpCount;
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < 2; ++j)
        rec[fold + 2 * k + j] = static_cast<uint8_t>(kFoldBase + 2 * static_cast<int>(kOpOfMwbCode[k]) + j);
  }
  for (int b = 0; b < 256; ++b) f.code_of[b] = rec[b % f.code_count];
  for (int b = f.code_count - 1; b >= 0; --b) f.byte_of[rec[b]] = static_cast<uint8_t>(b);
  for (int c = 0; c < kCodeCount; ++c) f.size[c] = kRecordSize[c];
  for (int c = kCodeCount; c < kCodeCount2; ++c)
    f.size[c] = c < kFoldBase ? kCompactSize : kRecordSize[(c - kFoldBase) >> 1];
  for (int b = 0; b < 256; ++b) f.size_at[b] = f.size[f.code_of[b]];
  return f;
}
// The op codes versions 1 to 4 know: the 26 ops ops.def held then.
inline constexpr int kOpCodesV1 = 26;
// Versions 1 to 4, oldest first; version 3 is version 2 plus the trailer,
// version 4 the same records with another hash in the trailer.
inline constexpr Format kFormats[] = {make_format(1, kOpCodesV1), make_format(2, kOpCodesV1),
                                      make_format(3, kOpCodesV1), make_format(4, kOpCodesV1)};
inline constexpr uint16_t kNewestFormat = static_cast<uint16_t>(std::size(kFormats));
static_assert(kFormats[kNewestFormat - 1].op_codes == kOpCount,
              "ops.def has an op the newest .mwb version has no code for: add a version "
              "(kFormats) that knows it, and keep the older ones as they are");
// Returns the tables of a version (below 1 as 1, above the newest as the newest).
constexpr const Format& format(uint16_t version) {
  return kFormats[version < 1 ? 0 : version > kNewestFormat ? kNewestFormat - 1 : version - 1];
}

// A compact record's fields, handles reduced into the caps.
struct Compact {
  OpCode op;
  bool folded;     // the usual outcome is expected (fallback clause)
  RkeyBase key;    // MwCur, MwPrev or Mr: the object names the key and the base
  uint32_t qp, h;  // the QP, and the window or MR
  uint32_t len;
  uint64_t off;
};
// Returns the fields of a compact record of code `code` (p after the code byte).
inline Compact decode_compact(uint8_t code, const uint8_t* p, const Caps& caps) {
  const uint32_t obj = detail::le32(p) & 0xffffff;  // the record has 11 bytes after the code
  const unsigned i = static_cast<unsigned>(code - kCompactBase);
  Compact c;
  c.op = kCompactOps[i >> 1];
  c.folded = i & 1;
  c.key = kCompactKey[(obj >> 20) & 3];
  c.h = detail::reduce_handle(obj & 0xfffff, c.key == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw,
                              caps);
  c.qp = detail::reduce_handle(detail::le(p + 3, 2), HandleKind::Qp, caps);
  c.len = static_cast<uint32_t>(detail::le(p + 5, 2));
  c.off = detail::le32(p + 7);
  return c;
}
// Sets op to the op a compact record holds (`base` being default_op(c.op)).
inline void compact_op(const Compact& c, const Op& base, Op& op) {
  op = base;
  op.a[0].h = c.qp;
  op.a[1] = Arg{0, c.h, static_cast<uint8_t>(c.key)};
  const AddrBase at = c.key == RkeyBase::Mr ? AddrBase::Mr : AddrBase::Mw;
  op.a[2] = Arg{c.off, c.h, static_cast<uint8_t>(at)};
  op.a[3].v = c.len;
}
// Returns the typed view (args::peer_write or args::peer_read, as c.op
// says) of the op a compact record holds: compact_op()'s op, without the
// uniform record in between.
template <class View>
inline View compact_view(const Compact& c) {
  View v(default_op(View::code));
  v.qp = c.qp;
  v.rkey = Arg{0, c.h, static_cast<uint8_t>(c.key)};
  const AddrBase at = c.key == RkeyBase::Mr ? AddrBase::Mr : AddrBase::Mw;
  v.addr = Arg{c.off, c.h, static_cast<uint8_t>(at)};
  v.len = c.len;
  return v;
}
// Returns the handle kind and handle that lead a record of `f` (p at its
// code byte), or false for records of no op.
inline bool anchor(const Format& f, const uint8_t* p, const Caps& caps, HandleKind& k, uint32_t& h) {
  const uint8_t code = f.code_of[*p];
  if (is_compact(code)) {
    k = HandleKind::Qp;
    h = decode_compact(code, p + 1, caps).qp;
    return true;
  }
  if (code >= kOpCount && code < kFoldBase) return false;
  k = kAnchorKind[static_cast<int>(full_op(code))];
  h = detail::reduce_handle(detail::le32(p + 1), k, caps);
  return true;
}
// Decodes the op of a record of `f` (p at its code byte) into op; returns
// false for records of no op.
bool decode_any_op(const Format& f, const uint8_t* p, const Caps& caps, Op& op);

// Appends the records of an op and its expectations in a version's form:
// in version 2 a hot op whose first expectation is the usual fallback
// folds it into a compact code. The version must know the op
// (Format::knows): every version does today.
void encode_op_with(const Op& op, std::span<const Expectation> es, std::vector<uint8_t>& out,
                    uint16_t version);
// Appends the record of an op in format f.
void encode_op(const Op& op, std::vector<uint8_t>& out, const Format& f);
// Appends the record of an expectation (its op is the record before).
void encode_expect(const Expectation& e, std::vector<uint8_t>& out, const Format& f);
// Appends a .mwb header for caps with a string table of strtab bytes.
void encode_header(const Caps& caps, uint32_t strtab, std::vector<uint8_t>& out,
                   uint16_t version);

}  // namespace mwc::mwb
