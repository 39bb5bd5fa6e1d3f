#include "refmodel/binary_codec.hpp"

#include <algorithm>
#include <cstring>

#include "refmodel/vocab.hpp"

namespace mwc {
namespace {

constexpr uint8_t kExpectCode = kOpCount;
constexpr uint8_t kCommentCode = kOpCount + 1;
constexpr int kCodeCount = kOpCount + 2;
constexpr size_t kExpectSize = 1 + 6;
constexpr size_t kCommentSize = 1 + 9;
constexpr uint8_t kAny = 0xff;

size_t kind_size(FieldKind k) {
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

struct Writer {
  std::vector<uint8_t> out;
  void u8(uint64_t v) { out.push_back(static_cast<uint8_t>(v)); }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
};

uint64_t rd(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

int index_of(std::span<const NamedValue> t, uint64_t v) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].value == v) return static_cast<int>(i);
  return 0;
}

// Reduces v into [lo, hi]; values already inside stay as they are.
uint64_t reduce(uint64_t v, uint64_t lo, uint64_t hi) {
  if (v >= lo && v <= hi) return v;
  const uint64_t span = hi - lo;
  return span == ~uint64_t{0} ? v : lo + v % (span + 1);
}

uint32_t reduce_handle(uint64_t v, HandleKind k, const Caps& caps) {
  return static_cast<uint32_t>(v % caps[static_cast<int>(k)]);
}

}  // namespace

size_t record_size(OpCode c) {
  size_t n = 1;
  for (const auto& f : op_desc(c).fields) n += kind_size(f.kind);
  return n;
}

std::vector<uint8_t> encode_mwb(const Trace& t) {
  Writer w;
  std::string strings;
  w.out.insert(w.out.end(), {'M', 'W', 'T', 'B'});
  w.le(kMwbVersion, 2);
  w.le(0, 2);
  for (uint32_t c : t.caps) w.le(c, 4);
  const size_t strtab_at = w.out.size();
  w.le(0, 4);
  size_t ci = 0, ei = 0;
  const auto comment = [&](const Comment& c) {
    w.u8(kCommentCode);
    w.u8(c.end_of_line);
    w.le(strings.size(), 4);
    w.le(c.text.size(), 4);
    strings += c.text;
  };
  for (uint32_t i = 0; i <= t.ops.size(); ++i) {
    for (; ci < t.comments.size() && t.comments[ci].op == i && !t.comments[ci].end_of_line; ++ci)
      comment(t.comments[ci]);
    if (i == t.ops.size()) break;
    const Op& op = t.ops[i];
    const auto& d = op_desc(op.code);
    w.u8(static_cast<uint8_t>(op.code));
    for (size_t f = 0; f < d.fields.size(); ++f) {
      const Arg& a = op.a[f];
      const FieldKind k = d.fields[f].kind;
      if (is_handle(k)) w.le(a.h, 4);
      else if (k == FieldKind::U64) w.le(a.v, 8);
      else if (k == FieldKind::QpType) w.u8(index_of(qp_type_names(), a.v));
      else if (k == FieldKind::QpState) w.u8(a.v);
      else if (k == FieldKind::Addr) w.u8(a.tag), w.le(a.h, 4), w.le(a.v, 8);
      else if (k == FieldKind::Rkey) w.u8(a.tag), w.le(a.h, 4), w.u8(a.v);
      else if (k == FieldKind::Key) w.u8(a.tag), w.u8(a.v);
      else w.le(a.v, 4);
    }
    for (; ei < t.expects.size() && t.expects[ei].op == i; ++ei) {
      const Expectation& e = t.expects[ei];
      const Pattern& p = e.pattern;
      w.u8(kExpectCode);
      w.u8((e.fallback ? 0x80 : 0) | e.profiles);
      w.u8(p.ret ? static_cast<uint8_t>(*p.ret) : kAny);
      w.u8(p.wc ? static_cast<uint8_t>(*p.wc) : kAny);
      w.u8(p.wc_op ? static_cast<uint8_t>(*p.wc_op) : kAny);
      w.le(p.key ? static_cast<uint16_t>(*p.key) : 0xffff, 2);
    }
    for (; ci < t.comments.size() && t.comments[ci].op == i && t.comments[ci].end_of_line; ++ci)
      comment(t.comments[ci]);
  }
  for (; ci < t.comments.size(); ++ci) comment(t.comments[ci]);
  const uint32_t n = static_cast<uint32_t>(strings.size());
  std::memcpy(w.out.data() + strtab_at, &n, 4);  // little-endian hosts only
  w.out.insert(w.out.end(), strings.begin(), strings.end());
  return std::move(w.out);
}

Trace decode_records(std::span<const uint8_t> rec, const Caps& caps,
                     std::span<const uint8_t> strings) {
  Trace t;
  t.caps = caps;
  for (int k = 0; k < kHandleKinds; ++k) t.caps[k] = std::clamp(caps[k], 1u, kMaxCap[k]);
  const size_t nres = result_names().size(), nwc = wc_status_names().size(),
               nop = wc_opcode_names().size(), nstates = qp_state_names().size(),
               ntypes = qp_type_names().size();
  size_t i = 0;
  while (i < rec.size()) {
    const int code = rec[i] % kCodeCount;
    const uint8_t* p = rec.data() + i + 1;
    const size_t left = rec.size() - i - 1;
    if (code == kExpectCode) {
      if (left < kExpectSize - 1) break;
      i += kExpectSize;
      if (t.ops.empty()) continue;
      Expectation e;
      e.op = static_cast<uint32_t>(t.ops.size() - 1);
      e.fallback = (p[0] & 0x80) != 0;
      e.profiles = e.fallback ? 0 : static_cast<uint8_t>(p[0] & ((1u << kProfileCount) - 1));
      if (!e.fallback && e.profiles == 0) continue;
      if (p[1] != kAny) e.pattern.ret = static_cast<Result>(p[1] % nres);
      if (p[2] != kAny && p[2] % nwc != 0) e.pattern.wc = static_cast<WcStatus>(p[2] % nwc);
      if (p[3] != kAny && p[3] % nop != 0) e.pattern.wc_op = static_cast<WcOpcode>(p[3] % nop);
      if (const auto k = rd(p + 4, 2); k != 0xffff) e.pattern.key = static_cast<int16_t>(k % 256);
      if (e.pattern.wc && !e.pattern.ret) e.pattern.ret = Result::kOK;
      // One clause per profile, one fallback: a later duplicate is dropped.
      bool dup = false;
      for (const auto& o : t.expects)
        if (o.op == e.op && (o.fallback ? e.fallback : (o.profiles & e.profiles) != 0)) dup = true;
      if (dup) continue;
      // The fallback clause comes first, as the text form prints it.
      auto at = t.expects.end();
      if (e.fallback)
        while (at != t.expects.begin() && (at - 1)->op == e.op) --at;
      t.expects.insert(at, e);
      continue;
    }
    if (code == kCommentCode) {
      if (left < kCommentSize - 1) break;
      i += kCommentSize;
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
    const auto oc = static_cast<OpCode>(code);
    const size_t size = record_size(oc);
    if (left < size - 1) break;
    i += size;
    Op op = default_op(oc);
    const auto& d = op_desc(oc);
    for (size_t f = 0; f < d.fields.size(); ++f) {
      const FieldDesc& fd = d.fields[f];
      Arg& a = op.a[f];
      const FieldKind k = fd.kind;
      if (is_handle(k)) {
        const uint64_t v = rd(p, 4);
        a.h = (v == kNoHandle && fd.mode == FieldMode::Opt) ? kNoHandle
                                                              : reduce_handle(v, handle_kind(k), t.caps);
      } else if (k == FieldKind::U64) {
        a.v = reduce(rd(p, 8), fd.lo, fd.hi);
      } else if (k == FieldKind::QpType) {
        a.v = qp_type_names()[p[0] % ntypes].value;
      } else if (k == FieldKind::QpState) {
        a.v = p[0] % nstates;
      } else if (k == FieldKind::Addr) {
        a.tag = p[0] % 4;
        const auto base = static_cast<AddrBase>(a.tag);
        const HandleKind hk = base == AddrBase::Buf ? HandleKind::Buf
                              : base == AddrBase::Mr ? HandleKind::Mr : HandleKind::Mw;
        a.h = base == AddrBase::Raw ? kNoHandle : reduce_handle(rd(p + 1, 4), hk, t.caps);
        a.v = rd(p + 5, 8);
      } else if (k == FieldKind::Rkey) {
        a.tag = p[0] % 4;
        const auto base = static_cast<RkeyBase>(a.tag);
        const uint64_t h = rd(p + 1, 4);
        if (base == RkeyBase::Raw) {
          a.h = static_cast<uint32_t>(h);
          a.v = 0;
        } else {
          a.h = reduce_handle(h, base == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw, t.caps);
          a.v = p[5];
        }
      } else if (k == FieldKind::Key) {
        a.tag = p[0] % 2;
        a.v = p[1];
      } else {
        const auto table = k == FieldKind::Access      ? access_flag_names()
                           : k == FieldKind::SendFlags ? send_flag_names()
                                                       : rereg_flag_names();
        a.v = rd(p, 4) & all_bits(table);
      }
      p += kind_size(k);
    }
    t.ops.push_back(op);
  }
  return t;
}

std::variant<Trace, DecodeError> decode_mwb(std::span<const uint8_t> b) {
  if (b.size() < kMwbHeaderSize)
    return DecodeError{0, "truncated: a .mwb file starts with a 32-byte header"};
  if (std::memcmp(b.data(), "MWTB", 4) != 0)
    return DecodeError{0, "not an mwcheck binary trace (the magic is not MWTB)"};
  const auto version = rd(b.data() + 4, 2);
  if (version != kMwbVersion)
    return DecodeError{4, "unsupported .mwb version " + std::to_string(version) + " (this is version " +
                              std::to_string(kMwbVersion) + ")"};
  Caps caps;
  for (int k = 0; k < kHandleKinds; ++k) caps[k] = static_cast<uint32_t>(rd(b.data() + 8 + 4 * k, 4));
  const auto body = b.subspan(kMwbHeaderSize);
  const size_t strtab = static_cast<size_t>(std::min<uint64_t>(rd(b.data() + 28, 4), body.size()));
  return decode_records(body.first(body.size() - strtab), caps, body.last(strtab));
}

}  // namespace mwc
