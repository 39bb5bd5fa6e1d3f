#include "refmodel/text_codec.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "refmodel/layout.hpp"
#include "refmodel/vocab.hpp"
#include "util/quote.hpp"

namespace mwc {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

struct Fail {
  size_t col;  // 0-based offset in the line
  std::string msg;
};

// Parses an unsigned number, decimal or 0x-hex, the whole of `s`.
std::optional<uint64_t> parse_uint(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// A signed offset "+N" / "-N" as two's complement, or nullopt.
std::optional<uint64_t> parse_offset(std::string_view s) {
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const auto v = parse_uint(s.substr(1));
  if (!v) return std::nullopt;
  return s[0] == '-' ? uint64_t{0} - *v : *v;
}

std::string fmt_uint(uint64_t v) {
  if (v < (uint64_t{1} << 32)) return std::to_string(v);
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  return "0x" + std::string(buf, end);
}
std::string fmt_hex(uint64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  return "0x" + std::string(buf, end);
}
std::string fmt_offset(uint64_t v) {
  if (v == 0) return "";
  const auto s = static_cast<int64_t>(v);
  return s < 0 ? "-" + std::to_string(uint64_t{0} - v) : "+" + std::to_string(v);
}
std::string fmt_delta(uint64_t v) {  // a key byte delta, printed in -128..127
  const auto d = static_cast<int8_t>(static_cast<uint8_t>(v));
  if (d == 0) return "";
  return d < 0 ? "-" + std::to_string(-int{d}) : "+" + std::to_string(int{d});
}

std::span<const NamedValue> flag_table(FieldKind k) {
  switch (k) {
    case FieldKind::Access: return access_flag_names();
    case FieldKind::SendFlags: return send_flag_names();
    case FieldKind::ReregFlags: return rereg_flag_names();
    case FieldKind::QpType: return qp_type_names();
    default: return qp_state_names();
  }
}
std::string_view flag_prefix(FieldKind k) {
  switch (k) {
    case FieldKind::Access: return "IBV_ACCESS_";
    case FieldKind::SendFlags: return "IBV_SEND_";
    case FieldKind::ReregFlags: return "IBV_REREG_MR_";
    case FieldKind::QpType: return "IBV_QPT_";
    default: return "IBV_QPS_";
  }
}

// Parses a handle of kind `k` ("m3"); returns its index or sets `f`.
std::optional<uint32_t> parse_handle(std::string_view s, HandleKind k, Fail& f) {
  const char prefix = kHandlePrefix[static_cast<int>(k)];
  if (s.size() < 2 || s[0] != prefix) {
    f.msg = std::string("expected a handle '") + prefix + "N', got " + quote(s);
    return std::nullopt;
  }
  const auto v = parse_uint(s.substr(1));
  if (!v || (s[1] == '0' && s.size() > 2)) {
    f.msg = "bad handle " + quote(s);
    return std::nullopt;
  }
  if (*v >= kMaxCap[static_cast<int>(k)]) {
    f.msg = "handle " + quote(s) + " is beyond the limit of " +
            std::to_string(kMaxCap[static_cast<int>(k)]) + " objects";
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

std::optional<HandleKind> kind_of_prefix(char c) {
  for (int i = 0; i < kHandleKinds; ++i)
    if (kHandlePrefix[i] == c) return static_cast<HandleKind>(i);
  return std::nullopt;
}

// Splits "w3.prev+2" into base "w3", suffix ".prev", offset "+2".
struct BaseSplit {
  std::string_view base, suffix, offset;
};
BaseSplit split_base(std::string_view s) {
  BaseSplit r;
  size_t i = 1;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  r.base = s.substr(0, i);
  size_t j = i;
  if (j < s.size() && s[j] == '.') {
    while (j < s.size() && s[j] != '+' && s[j] != '-') ++j;
    r.suffix = s.substr(i, j - i);
  }
  r.offset = s.substr(j);
  return r;
}

bool parse_value(const FieldDesc& fd, std::string_view s, Arg& out, Fail& f) {
  const FieldKind k = fd.kind;
  if (s.empty()) return f.msg = "missing value for " + quote(fd.name), false;
  if (is_handle(k)) {
    const auto h = parse_handle(s, handle_kind(k), f);
    if (!h) return false;
    out.h = *h;
    return true;
  }
  switch (k) {
    case FieldKind::U64: {
      const auto v = parse_uint(s);
      if (!v) return f.msg = "expected a number, got " + quote(s), false;
      if (*v < fd.lo || *v > fd.hi)
        return f.msg = std::string(fd.name) + "=" + escaped(s) + " is outside " +
                       std::to_string(fd.lo) + ".." + fmt_uint(fd.hi),
               false;
      out.v = *v;
      return true;
    }
    case FieldKind::Access:
    case FieldKind::SendFlags:
    case FieldKind::ReregFlags: {
      const auto table = flag_table(k);
      uint64_t bits = 0;
      size_t i = 0;
      while (i <= s.size()) {
        const size_t j = std::min(s.find('|', i), s.size());
        std::string_view t = s.substr(i, j - i);
        if (t.starts_with(flag_prefix(k))) t.remove_prefix(flag_prefix(k).size());
        bool found = false;
        for (const auto& nv : table)
          if (nv.name == t) bits |= nv.value, found = true;
        if (!found) {
          const auto v = parse_uint(t);
          if (!v || (*v & ~uint64_t{all_bits(table)}))
            return f.col += i, f.msg = "unknown flag " + quote(t), false;
          bits |= *v;
        }
        i = j + 1;
      }
      out.v = bits;
      return true;
    }
    case FieldKind::QpType:
    case FieldKind::QpState: {
      std::string_view t = s;
      if (t.starts_with(flag_prefix(k))) t.remove_prefix(flag_prefix(k).size());
      for (const auto& nv : flag_table(k))
        if (nv.name == t) return out.v = nv.value, true;
      std::string names;
      for (const auto& nv : flag_table(k)) names += (names.empty() ? "" : ", ") + std::string(nv.name);
      return f.msg = "unknown " + std::string(fd.name) + " " + quote(s) + " (" + names + ")",
             false;
    }
    case FieldKind::Addr: {
      if (s[0] >= '0' && s[0] <= '9') {
        const auto v = parse_uint(s);
        if (!v) return f.msg = "bad address " + quote(s), false;
        out = Arg{*v, kNoHandle, static_cast<uint8_t>(AddrBase::Raw)};
        return true;
      }
      const auto sp = split_base(s);
      const auto hk = kind_of_prefix(s[0]);
      AddrBase base{};
      if (hk == HandleKind::Buf) base = AddrBase::Buf;
      else if (hk == HandleKind::Mr) base = AddrBase::Mr;
      else if (hk == HandleKind::Mw) base = AddrBase::Mw;
      else return f.msg = "an address is a number or b/m/wN[+-OFFSET], got " + quote(s), false;
      if (!sp.suffix.empty()) return f.msg = "unexpected " + quote(sp.suffix), false;
      const auto h = parse_handle(sp.base, *hk, f);
      if (!h) return false;
      uint64_t off = 0;
      if (!sp.offset.empty()) {
        const auto o = parse_offset(sp.offset);
        if (!o) return f.col += sp.base.size(), f.msg = "bad offset " + quote(sp.offset), false;
        off = *o;
      }
      out = Arg{off, *h, static_cast<uint8_t>(base)};
      return true;
    }
    case FieldKind::Rkey: {
      if (s[0] >= '0' && s[0] <= '9') {
        const auto v = parse_uint(s);
        if (!v || *v > 0xffffffffu) return f.msg = "an rkey is a 32-bit number, got " + quote(s), false;
        out = Arg{0, static_cast<uint32_t>(*v), static_cast<uint8_t>(RkeyBase::Raw)};
        return true;
      }
      const auto sp = split_base(s);
      const auto hk = kind_of_prefix(s[0]);
      RkeyBase base{};
      if (hk == HandleKind::Mw && sp.suffix.empty()) base = RkeyBase::MwCur;
      else if (hk == HandleKind::Mw && sp.suffix == ".prev") base = RkeyBase::MwPrev;
      else if (hk == HandleKind::Mr && sp.suffix.empty()) base = RkeyBase::Mr;
      else return f.msg = "an rkey is a number, wN, wN.prev or mN (each may add +K to the key byte), got " + quote(s), false;
      const auto h = parse_handle(sp.base, *hk, f);
      if (!h) return false;
      uint64_t d = 0;
      if (!sp.offset.empty()) {
        const auto o = parse_offset(sp.offset);
        if (!o || (*o > 255 && *o < uint64_t{0} - 255))
          return f.col += sp.base.size() + sp.suffix.size(), f.msg = "bad key byte delta " + quote(sp.offset), false;
        d = layout::key_byte(*o);
      }
      out = Arg{d, *h, static_cast<uint8_t>(base)};
      return true;
    }
    case FieldKind::Key: {
      if (s[0] == '+' || s[0] == '-') {
        const auto o = parse_offset(s);
        if (!o || (*o > 255 && *o < uint64_t{0} - 255)) return f.msg = "bad key delta " + quote(s), false;
        out = Arg{layout::key_byte(*o), kNoHandle, static_cast<uint8_t>(KeyBase::Rel)};
        return true;
      }
      const auto v = parse_uint(s);
      if (!v || *v > 255) return f.msg = "a key byte is +N, -N (relative) or 0..255, got " + quote(s), false;
      out = Arg{*v, kNoHandle, static_cast<uint8_t>(KeyBase::Abs)};
      return true;
    }
    default: break;
  }
  return f.msg = "internal: unhandled field kind", false;
}

std::string value_text(const FieldDesc& fd, const Arg& a) {
  const FieldKind k = fd.kind;
  if (is_handle(k)) return kHandlePrefix[static_cast<int>(k)] + std::to_string(a.h);
  switch (k) {
    case FieldKind::U64: return fmt_uint(a.v);
    case FieldKind::Access:
    case FieldKind::SendFlags:
    case FieldKind::ReregFlags: {
      std::string s;
      for (const auto& nv : flag_table(k))
        if (a.v & nv.value) s += (s.empty() ? "" : "|") + std::string(nv.name);
      return s.empty() ? "0" : s;
    }
    case FieldKind::QpType:
    case FieldKind::QpState:
      for (const auto& nv : flag_table(k))
        if (nv.value == a.v) return std::string(nv.name);
      return std::to_string(a.v);
    case FieldKind::Addr: {
      const auto base = static_cast<AddrBase>(a.tag);
      if (base == AddrBase::Raw) return fmt_hex(a.v);
      const char p = base == AddrBase::Buf ? 'b' : base == AddrBase::Mr ? 'm' : 'w';
      return p + std::to_string(a.h) + fmt_offset(a.v);
    }
    case FieldKind::Rkey: {
      const auto base = static_cast<RkeyBase>(a.tag);
      if (base == RkeyBase::Raw) return fmt_hex(a.h);
      const std::string h = std::to_string(a.h);
      if (base == RkeyBase::Mr) return "m" + h + fmt_delta(a.v);
      return "w" + h + (base == RkeyBase::MwPrev ? ".prev" : "") + fmt_delta(a.v);
    }
    case FieldKind::Key: {
      if (static_cast<KeyBase>(a.tag) == KeyBase::Abs) return fmt_hex(a.v);
      const std::string d = fmt_delta(a.v);
      return d.empty() ? "+0" : d;
    }
    default: return "?";
  }
}

bool is_default(const FieldDesc& fd, const Arg& a) {
  if (fd.mode != FieldMode::Opt) return false;
  if (is_handle(fd.kind)) return a.h == kNoHandle;
  if (fd.kind == FieldKind::Key) return a.tag == static_cast<uint8_t>(KeyBase::Rel) && a.v == fd.def;
  if (fd.kind == FieldKind::Addr || fd.kind == FieldKind::Rkey) return a.tag == 0 && a.v == 0 && a.h == kNoHandle;
  return a.v == fd.def;
}

// Parses the expectation clauses after "=>" in `s`, which starts at column
// `col0`. Appends them to `t.expects` for op `op`.
std::optional<Fail> parse_expectations(std::string_view s, size_t col0, uint32_t op, Trace& t) {
  bool seen_fallback = false;
  uint8_t seen = 0;
  size_t i = 0;
  while (i <= s.size()) {
    const size_t j = std::min(s.find(';', i), s.size());
    std::string_view clause = s.substr(i, j - i);
    size_t at = col0 + i;
    Expectation e;
    e.op = op;
    const size_t colon = clause.find(':');
    if (colon != std::string_view::npos) {
      e.fallback = false;
      std::string_view labels = clause.substr(0, colon);
      size_t k = 0;
      while (k <= labels.size()) {
        const size_t l = std::min(labels.find(',', k), labels.size());
        std::string_view name = labels.substr(k, l - k);
        const size_t lead = name.find_first_not_of(" \t");
        const size_t lead_n = lead == std::string_view::npos ? name.size() : lead;
        name.remove_prefix(lead_n);
        while (!name.empty() && is_space(name.back())) name.remove_suffix(1);
        const auto p = profile_from_name(name);
        if (!p)
          return Fail{at + k + lead_n, "unknown profile " + quote(name) + " (profiles: " + profile_names() + ")"};
        const uint8_t bit = static_cast<uint8_t>(1u << static_cast<int>(*p));
        if (seen & bit)
          return Fail{at + k + lead_n, "profile " + quote(name) + " has two expectations"};
        seen |= bit;
        e.profiles |= bit;
        k = l + 1;
      }
      clause = clause.substr(colon + 1);
      at += colon + 1;
    } else {
      if (seen_fallback) return Fail{at, "two expectations without a profile label"};
      seen_fallback = true;
    }
    std::string err;
    size_t err_at = 0;
    const auto pat = parse_pattern(clause, err, err_at);
    if (!pat) return Fail{at + err_at, err};
    e.pattern = *pat;
    // The fallback clause comes first, as print_text writes it.
    auto pos = t.expects.end();
    if (e.fallback)
      while (pos != t.expects.begin() && (pos - 1)->op == op) --pos;
    t.expects.insert(pos, e);
    i = j + 1;
  }
  return std::nullopt;
}

}  // namespace

void note_caps(Caps& caps, const Op& op) {
  const auto& d = op_desc(op.code);
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const auto& fd = d.fields[i];
    const Arg& a = op.a[i];
    int k = -1;
    if (is_handle(fd.kind) && a.h != kNoHandle) k = static_cast<int>(handle_kind(fd.kind));
    if (fd.kind == FieldKind::Addr && a.tag != 0) {
      const auto b = static_cast<AddrBase>(a.tag);
      k = static_cast<int>(b == AddrBase::Buf ? HandleKind::Buf : b == AddrBase::Mr ? HandleKind::Mr : HandleKind::Mw);
    }
    if (fd.kind == FieldKind::Rkey && a.tag != 0)
      k = static_cast<int>(static_cast<RkeyBase>(a.tag) == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw);
    if (k >= 0) caps[k] = std::max(caps[k], a.h + 1);
  }
}

std::string beyond_limits(const Trace& t) {
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    Caps caps{};
    note_caps(caps, op);
    for (int k = 0; k < kHandleKinds; ++k)
      if (caps[k] > kMaxCap[k])
        return "op " + std::to_string(i + 1) + " (" + op_to_text(op) + ") names object " +
               kHandlePrefix[k] + std::to_string(caps[k] - 1) + ", beyond the limit of " +
               std::to_string(kMaxCap[k]) + " of its kind";
    const auto& d = op_desc(op.code);
    for (size_t f = 0; f < d.fields.size(); ++f) {
      const FieldDesc& fd = d.fields[f];
      if (fd.kind == FieldKind::U64 && (op.a[f].v < fd.lo || op.a[f].v > fd.hi))
        return "op " + std::to_string(i + 1) + " (" + op_to_text(op) + "): " + std::string(fd.name) + " " +
               std::to_string(op.a[f].v) + " is outside " + std::to_string(fd.lo) + ".." + std::to_string(fd.hi);
    }
  }
  return "";
}

std::variant<Trace, ParseError> parse_text(std::string_view text) {
  Trace t;
  uint32_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    const auto error = [&](size_t col, std::string msg) {
      return ParseError{line_no, static_cast<uint32_t>(col + 1), std::move(msg)};
    };
    const auto op_index = static_cast<uint32_t>(t.ops.size());

    const size_t hash = line.find('#');
    std::string_view body = line.substr(0, hash);
    const size_t first = body.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) {  // blank or comment-only line
      if (hash != std::string_view::npos) {
        std::string c(line.substr(hash + 1));
        while (!c.empty() && c.back() == '\r') c.pop_back();
        t.comments.push_back(Comment{op_index, false, std::move(c)});
      }
      continue;
    }
    std::string_view expect;
    size_t expect_col = 0;
    const size_t arrow = body.find("=>");
    if (arrow != std::string_view::npos) {
      expect = body.substr(arrow + 2);
      expect_col = arrow + 2;
      body = body.substr(0, arrow);
    }

    // Tokens of the op part.
    Op op;
    const FieldDesc* fields = nullptr;
    size_t nfields = 0;
    uint32_t given = 0;  // bit i: field i was given
    size_t next_pos = 0;
    bool have_name = false;
    size_t i = first;
    while (i < body.size()) {
      while (i < body.size() && is_space(body[i])) ++i;
      if (i >= body.size()) break;
      size_t j = i;
      while (j < body.size() && !is_space(body[j])) ++j;
      const std::string_view tok = body.substr(i, j - i);
      if (!have_name) {
        const int c = op_from_name(tok);
        if (c == kOpCount) return error(i, "unknown op " + quote(tok));
        op = default_op(static_cast<OpCode>(c));
        fields = op_desc(op.code).fields.data();
        nfields = op_desc(op.code).fields.size();
        have_name = true;
      } else {
        size_t fi = nfields;
        std::string_view value = tok;
        size_t value_col = i;
        if (const size_t eq = tok.find('='); eq != std::string_view::npos) {
          const std::string_view key = tok.substr(0, eq);
          for (size_t k = 0; k < nfields; ++k)
            if (fields[k].name == key && fields[k].mode != FieldMode::Pos) fi = k;
          if (fi == nfields)
            return error(i, "op " + quote(op_desc(op.code).name) + " has no field " + quote(key));
          value = tok.substr(eq + 1);
          value_col = i + eq + 1;
        } else {
          while (next_pos < nfields && fields[next_pos].mode != FieldMode::Pos) ++next_pos;
          if (next_pos >= nfields)
            return error(i, "unexpected " + quote(tok) + " (fields are name=value)");
          fi = next_pos++;
        }
        if (given & (1u << fi)) return error(i, "field '" + std::string(fields[fi].name) + "' given twice");
        given |= 1u << fi;
        Fail f{0, {}};
        if (!parse_value(fields[fi], value, op.a[fi], f)) return error(value_col + f.col, f.msg);
      }
      i = j;
    }
    if (!have_name) return error(first, "'=>' needs an op before it");
    for (size_t k = 0; k < nfields; ++k) {
      if (fields[k].mode != FieldMode::Opt && !(given & (1u << k)))
        return error(body.size(), "op " + quote(op_desc(op.code).name) + " needs " +
                                      (fields[k].mode == FieldMode::Pos ? "its " : "field ") +
                                      std::string(fields[k].name));
    }
    if (arrow != std::string_view::npos) {
      if (auto f = parse_expectations(expect, expect_col, op_index, t)) return error(f->col, f->msg);
    }
    if (hash != std::string_view::npos) {
      std::string c(line.substr(hash + 1));
      while (!c.empty() && c.back() == '\r') c.pop_back();
      t.comments.push_back(Comment{op_index, true, std::move(c)});
    }
    note_caps(t.caps, op);
    t.ops.push_back(op);
    t.lines.push_back(line_no);
  }
  return t;
}

std::string op_to_text(const Op& op) {
  const auto& d = op_desc(op.code);
  std::string s(d.name);
  for (size_t i = 0; i < d.fields.size(); ++i) {
    const auto& fd = d.fields[i];
    if (is_default(fd, op.a[i])) continue;
    s += ' ';
    if (fd.mode != FieldMode::Pos) s += std::string(fd.name) + "=";
    s += value_text(fd, op.a[i]);
  }
  return s;
}

std::string outcome_words(OpCode c, std::string_view outcome, std::string_view other) {
  if (is_bind(c) && outcome == "OK" && other.starts_with("OK key=")) return "OK (the window keeps its key)";
  return std::string(outcome);
}

std::string expectations_text(std::span<const Expectation> es) {
  std::string s;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& e : es) {
      if (e.fallback != (pass == 0)) continue;
      if (!s.empty()) s += "; ";
      if (!e.fallback) {
        std::string labels;
        for (int p = 0; p < kProfileCount; ++p)
          if ((e.profiles >> p) & 1)
            labels += (labels.empty() ? "" : ",") + std::string(profile_descs()[p].name);
        s += labels + ": ";
      }
      s += to_text(e.pattern);
    }
  }
  return s;
}

std::string print_text(const Trace& t, const OpAnnotations& a) {
  std::string s;
  size_t ci = 0;
  for (uint32_t i = 0; i <= t.ops.size(); ++i) {
    for (; ci < t.comments.size() && t.comments[ci].op == i && !t.comments[ci].end_of_line; ++ci)
      s += "#" + t.comments[ci].text + "\n";
    if (i == t.ops.size()) break;
    s += op_to_text(t.ops[i]);
    if (const std::string o = a.outcome ? a.outcome(i) : std::string(); !o.empty()) s += " => " + o;
    for (; ci < t.comments.size() && t.comments[ci].op == i && t.comments[ci].end_of_line; ++ci)
      s += "  #" + t.comments[ci].text;
    s += "\n";
    if (a.after) s += a.after(i);
  }
  for (; ci < t.comments.size(); ++ci) s += "#" + t.comments[ci].text + "\n";
  return s;
}

std::string print_text(const Trace& t) {
  size_t ei = 0;  // ops come in order: the expectations are walked once
  return print_text(t, {[&](uint32_t i) {
                          while (ei < t.expects.size() && t.expects[ei].op < i) ++ei;
                          const size_t e0 = ei;
                          while (ei < t.expects.size() && t.expects[ei].op == i) ++ei;
                          return ei > e0 ? expectations_text({t.expects.data() + e0, ei - e0}) : std::string();
                        },
                        nullptr});
}

}  // namespace mwc
