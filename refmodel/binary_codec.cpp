#include "refmodel/binary_codec.hpp"

#include <algorithm>
#include <cstring>

#include "refmodel/checksum.hpp"
#include "refmodel/mwb_record.hpp"
#include "refmodel/vocab.hpp"

namespace mwc {
namespace {

using mwb::kCommentCode;
using mwb::kCommentSize;
using mwb::kExpectCode;
using mwb::kExpectSize;

void put(std::vector<uint8_t>& out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint64_t rd(const uint8_t* p, int n) { return mwb::detail::le(p, n); }

int index_of(std::span<const NamedValue> t, uint64_t v) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].value == v) return static_cast<int>(i);
  return 0;
}

}  // namespace

namespace mwb {

void encode_header(const Caps& caps, uint32_t strtab, std::vector<uint8_t>& out,
                   uint16_t version) {
  out.insert(out.end(), {'M', 'W', 'T', 'B'});
  put(out, version, 2);
  put(out, 0, 2);
  for (uint32_t c : caps) put(out, c, 4);
  put(out, strtab, 4);
}

void encode_op(const Op& op, std::vector<uint8_t>& out, const Format& f) {
  const auto& d = op_desc(op.code);
  out.push_back(f.byte_of[static_cast<int>(op.code)]);
  for (size_t f = 0; f < d.fields.size(); ++f) {
    const Arg& a = op.a[f];
    const FieldKind k = d.fields[f].kind;
    if (is_handle(k)) put(out, a.h, 4);
    else if (k == FieldKind::U64) put(out, a.v, 8);
    else if (k == FieldKind::QpType) put(out, index_of(qp_type_names(), a.v), 1);
    else if (k == FieldKind::QpState) put(out, a.v, 1);
    else if (k == FieldKind::Addr) put(out, a.tag, 1), put(out, a.h, 4), put(out, a.v, 8);
    else if (k == FieldKind::Rkey) put(out, a.tag, 1), put(out, a.h, 4), put(out, a.v, 1);
    else if (k == FieldKind::Key) put(out, a.tag, 1), put(out, a.v, 1);
    else put(out, a.v, 4);
  }
}

void encode_expect(const Expectation& e, std::vector<uint8_t>& out, const Format& f) {
  const Pattern& p = e.pattern;
  out.push_back(f.byte_of[kExpectCode]);
  out.push_back(static_cast<uint8_t>((e.fallback ? 0x80 : 0) | e.profiles));
  out.push_back(p.ret ? static_cast<uint8_t>(*p.ret) : kAny);
  out.push_back(p.wc ? static_cast<uint8_t>(*p.wc) : kAny);
  out.push_back(p.wc_op ? static_cast<uint8_t>(*p.wc_op) : kAny);
  put(out, p.key ? static_cast<uint16_t>(*p.key) : 0xffff, 2);
}

namespace {
// Returns the compact code of op (folded or not), or -1 when it has none:
// a hot op through a key of a window or MR, at an offset into that object,
// with values the compact record holds.
int compact_code(const Op& op, bool folded) {
  int i = 0;
  while (i < kCompactOpCount && kCompactOps[i] != op.code) ++i;
  if (i == kCompactOpCount) return -1;
  const Arg &qp = op.a[0], &key = op.a[1], &addr = op.a[2], &len = op.a[3];
  const auto kb = static_cast<RkeyBase>(key.tag);
  if (kb == RkeyBase::Raw || key.v != 0 || key.h >= (1u << 20) || qp.h >= (1u << 16)) return -1;
  const AddrBase at = kb == RkeyBase::Mr ? AddrBase::Mr : AddrBase::Mw;
  if (addr.tag != static_cast<uint8_t>(at) || addr.h != key.h || addr.v >= (uint64_t{1} << 32))
    return -1;
  if (len.v >= (1u << 16)) return -1;
  // Only what decoding gives back: every other part at its default.
  Op back;
  compact_op(Compact{op.code, folded, kb, qp.h, key.h, static_cast<uint32_t>(len.v), addr.v},
             default_op(op.code), back);
  if (!(back == op)) return -1;
  return kCompactBase + 2 * i + (folded ? 1 : 0);
}

bool usual_fallback(std::span<const Expectation> es) {
  return !es.empty() && es[0].fallback && es[0].pattern == exact(kUsualOutcome);
}
bool ok_fallback(std::span<const Expectation> es) {
  return !es.empty() && es[0].fallback && es[0].pattern == exact(kOkOutcome);
}
}  // namespace

bool decode_any_op(const Format& f, const uint8_t* p, const Caps& caps, Op& op) {
  const uint8_t code = f.code_of[*p];
  if (code < kOpCount || code >= kFoldBase) {
    const OpCode c = full_op(code);
    op = default_op(c);
    decode_op(c, p + 1, caps, op);
    return true;
  }
  if (!is_compact(code)) return false;
  const Compact c = decode_compact(code, p + 1, caps);
  compact_op(c, default_op(c.op), op);
  return true;
}

void encode_op_with(const Op& op, std::span<const Expectation> es, std::vector<uint8_t>& out,
                    uint16_t version) {
  const Format& f = format(version);
  const bool fold = usual_fallback(es);
  const int code = version >= 2 ? compact_code(op, fold) : -1;
  if (code < 0) {
    // A full record; in version 2 its fallback clause `OK` or `OK
    // IBV_WC_SUCCESS` folded into the code.
    const size_t at = out.size();
    encode_op(op, out, f);
    const bool ok = version >= 2 && ok_fallback(es);
    const bool usual = version >= 2 && fold;
    if (ok || usual) out[at] = f.byte_of[kFoldBase + 2 * static_cast<int>(op.code) + usual];
    for (const auto& e : es.subspan(ok || usual ? 1 : 0)) encode_expect(e, out, f);
    return;
  }
  const Arg &key = op.a[1], &addr = op.a[2];
  const uint32_t kind = key.tag == static_cast<uint8_t>(RkeyBase::MwPrev) ? 1
                        : key.tag == static_cast<uint8_t>(RkeyBase::Mr)   ? 2 : 0;
  out.push_back(f.byte_of[code]);
  put(out, key.h | kind << 20, 3);
  put(out, op.a[0].h, 2);
  put(out, op.a[3].v, 2);
  put(out, addr.v, 4);
  for (const auto& e : es.subspan(fold ? 1 : 0)) encode_expect(e, out, f);
}

}  // namespace mwb

size_t records_size(const Op& op, std::span<const Expectation> es, uint16_t version) {
  std::vector<uint8_t> out;  // not on a hot path: the fuzzer's input sizes
  mwb::encode_op_with(op, es, out, version);
  return out.size();
}

size_t record_size(OpCode c) { return mwb::kRecordSize[static_cast<int>(c)]; }

std::vector<uint8_t> encode_mwb(const Trace& t, uint16_t version) {
  const mwb::Format& f = mwb::format(version);
  std::vector<uint8_t> out;
  std::string strings;
  mwb::encode_header(t.caps, 0, out, version);
  const size_t strtab_at = out.size() - 4;
  size_t ci = 0, ei = 0;
  const auto comment = [&](const Comment& c) {
    out.push_back(f.byte_of[kCommentCode]);
    out.push_back(c.end_of_line);
    put(out, strings.size(), 4);
    put(out, c.text.size(), 4);
    strings += c.text;
  };
  for (uint32_t i = 0; i <= t.ops.size(); ++i) {
    for (; ci < t.comments.size() && t.comments[ci].op == i && !t.comments[ci].end_of_line; ++ci)
      comment(t.comments[ci]);
    if (i == t.ops.size()) break;
    const size_t e0 = ei;
    while (ei < t.expects.size() && t.expects[ei].op == i) ++ei;
    mwb::encode_op_with(t.ops[i], std::span(t.expects).subspan(e0, ei - e0), out, version);
    for (; ci < t.comments.size() && t.comments[ci].op == i && t.comments[ci].end_of_line; ++ci)
      comment(t.comments[ci]);
  }
  for (; ci < t.comments.size(); ++ci) comment(t.comments[ci]);
  const uint32_t n = static_cast<uint32_t>(strings.size());
  std::memcpy(out.data() + strtab_at, &n, 4);  // little-endian hosts only
  out.insert(out.end(), strings.begin(), strings.end());
  if (has_trailer(version)) encode_trailer({t.ops.size(), checksum(out, trailer_hash(version))}, out);
  return out;
}

Trace decode_records(std::span<const uint8_t> rec, const Caps& caps,
                     std::span<const uint8_t> strings, uint16_t version) {
  const mwb::Format& f = mwb::format(version);
  Trace t;
  t.caps = caps;
  for (int k = 0; k < kHandleKinds; ++k) t.caps[k] = std::clamp(caps[k], 1u, kMaxCap[k]);
  size_t i = 0;
  while (i < rec.size()) {
    const int code = f.code_of[rec[i]];
    const uint8_t* p = rec.data() + i + 1;
    if (rec.size() - i < f.size[code]) break;  // a truncated last record
    i += f.size[code];
    if (mwb::is_compact(static_cast<uint8_t>(code))) {
      const mwb::Compact c = mwb::decode_compact(static_cast<uint8_t>(code), p, t.caps);
      mwb::compact_op(c, default_op(c.op), t.ops.emplace_back());
      if (c.folded)
        t.expects.push_back(Expectation{static_cast<uint32_t>(t.ops.size() - 1), true, 0,
                                        exact(mwb::kUsualOutcome)});
      continue;
    }
    if (code >= mwb::kFoldBase) {  // a full record, its fallback clause folded in
      uint64_t word = 0;
      const OpCode c = mwb::full_op(static_cast<uint8_t>(code), &word);
      Op& op = t.ops.emplace_back(default_op(c));
      mwb::decode_op(c, p, t.caps, op);
      t.expects.push_back(Expectation{static_cast<uint32_t>(t.ops.size() - 1), true, 0,
                                      exact(word == mwb::kUsualWord ? mwb::kUsualOutcome
                                                                    : mwb::kOkOutcome)});
      continue;
    }
    if (code == kExpectCode) {
      if (t.ops.empty()) continue;
      Expectation e;
      if (!mwb::decode_expect(p, static_cast<uint32_t>(t.ops.size() - 1), e)) continue;
      auto at = t.expects.end();
      while (at != t.expects.begin() && (at - 1)->op == e.op) --at;
      if (!mwb::expectation_kept({at, t.expects.end()}, e)) continue;
      // The fallback clause comes first, as the text form prints it.
      if (!e.fallback) at = t.expects.end();
      t.expects.insert(at, e);
      continue;
    }
    if (code == kCommentCode) {
      const uint64_t off = rd(p + 1, 4), len = rd(p + 5, 4);
      std::string text;
      if (off < strings.size()) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(len, strings.size() - off));
        text.assign(reinterpret_cast<const char*>(strings.data() + off), n);
      }
      std::replace(text.begin(), text.end(), '\n', ' ');
      std::replace(text.begin(), text.end(), '\r', ' ');
      // An end-of-line comment belongs to the last op, unless a comment line
      // for the next op came in between (comments stay in op order).
      const bool pending = !t.comments.empty() && t.comments.back().op == t.ops.size();
      const bool eol = (p[0] & 1) && !t.ops.empty() && !pending;
      t.comments.push_back(Comment{static_cast<uint32_t>(t.ops.size() - (eol ? 1 : 0)), eol, text});
      continue;
    }
    Op& op = t.ops.emplace_back(default_op(static_cast<OpCode>(code)));
    mwb::decode_op(static_cast<OpCode>(code), p, t.caps, op);
  }
  return t;
}

std::variant<MwbHeader, DecodeError> decode_header(std::span<const uint8_t> b) {
  if (b.size() < kMwbHeaderSize)
    return DecodeError{0, "truncated: a .mwb file starts with a 32-byte header"};
  if (std::memcmp(b.data(), "MWTB", 4) != 0) {
    // A text trace starts with an op's name or a comment: say how it runs.
    const bool text = std::all_of(b.begin(), b.begin() + 4, [](uint8_t c) {
      return (c >= 'a' && c <= 'z') || c == '_' || c == '#' || c == ' ';
    });
    return DecodeError{0, text ? "not an mwcheck binary trace (the magic is not MWTB; it reads as a text trace, "
                                 "which `mwcheck convert` makes a .mwb of and `mwcheck run` runs)"
                               : "not an mwcheck binary trace (the magic is not MWTB)"};
  }
  MwbHeader h;
  h.version = static_cast<uint16_t>(rd(b.data() + 4, 2));
  if (h.version < kMwbOldestVersion || h.version > kMwbVersion)
    return DecodeError{4, "unsupported .mwb version " + std::to_string(h.version) + " (this reads " +
                              std::to_string(kMwbOldestVersion) + " to " +
                              std::to_string(kMwbVersion) + ")"};
  for (int k = 0; k < kHandleKinds; ++k) h.caps[k] = static_cast<uint32_t>(rd(b.data() + 8 + 4 * k, 4));
  h.strtab = static_cast<uint32_t>(rd(b.data() + 28, 4));
  return h;
}

std::optional<DecodeError> check_size(const MwbHeader& h, uint64_t size) {
  if (!has_trailer(h.version)) return std::nullopt;  // versions 1 and 2 cannot tell
  if (size >= kMwbHeaderSize + uint64_t{h.strtab} + kMwbTrailerSize) return std::nullopt;
  return DecodeError{size, "truncated at byte " + std::to_string(size) + ": the header promises " +
                               std::to_string(h.strtab) +
                               " bytes of string table and a trailer after the records"};
}

void encode_trailer(const MwbTrailer& t, std::vector<uint8_t>& out) {
  out.insert(out.end(), {'M', 'W', 'T', 'E'});
  put(out, 0, 4);
  put(out, t.ops, 8);
  put(out, t.checksum, 8);
}

std::variant<MwbTrailer, DecodeError> decode_trailer(std::span<const uint8_t, kMwbTrailerSize> last,
                                                     uint64_t size) {
  if (std::memcmp(last.data(), "MWTE", 4) != 0 || rd(last.data() + 4, 4) != 0)
    return DecodeError{size, "truncated at byte " + std::to_string(size) +
                                 ": no trailer at its end (a .mwb file of version 3 on ends "
                                 "with one; was its writer stopped?)"};
  return MwbTrailer{rd(last.data() + 8, 8), rd(last.data() + 16, 8)};
}

std::optional<DecodeError> check_checksum(const MwbTrailer& t, uint64_t size, uint64_t sum) {
  if (t.checksum == sum) return std::nullopt;
  const uint64_t at = size - kMwbTrailerSize;
  return DecodeError{at + 16, "checksum mismatch: the " + std::to_string(at) +
                                  " bytes before the trailer are not those written"};
}

std::optional<DecodeError> check_ops(const MwbTrailer& t, uint64_t size, uint64_t ops) {
  if (t.ops == ops) return std::nullopt;
  return DecodeError{size - kMwbTrailerSize + 8, "the trailer counts " + std::to_string(t.ops) +
                                                     " ops, the records hold " + std::to_string(ops)};
}

std::variant<Trace, DecodeError> decode_mwb(std::span<const uint8_t> b) {
  auto hr = decode_header(b);
  if (auto* e = std::get_if<DecodeError>(&hr)) return *e;
  const MwbHeader& h = std::get<MwbHeader>(hr);
  if (auto e = check_size(h, b.size())) return *e;
  MwbTrailer trailer;
  if (has_trailer(h.version)) {
    const auto body = b.first(b.size() - kMwbTrailerSize);
    auto tr = decode_trailer(b.last<kMwbTrailerSize>(), b.size());
    if (auto* e = std::get_if<DecodeError>(&tr)) return *e;
    trailer = std::get<MwbTrailer>(tr);
    if (auto e = check_checksum(trailer, b.size(), checksum(body, trailer_hash(h.version)))) return *e;
    b = body;
  }
  const auto body = b.subspan(kMwbHeaderSize);
  const size_t strtab = static_cast<size_t>(std::min<uint64_t>(h.strtab, body.size()));
  Trace t = decode_records(body.first(body.size() - strtab), h.caps, body.last(strtab), h.version);
  if (has_trailer(h.version))
    if (auto e = check_ops(trailer, b.size() + kMwbTrailerSize, t.ops.size())) return *e;
  return t;
}

}  // namespace mwc
