#include "exports/literal.hpp"

#include <charconv>
#include <span>
#include <string_view>

#include "refmodel/layout.hpp"
#include "refmodel/vocab.hpp"

namespace mwc::exports {
namespace {

std::string hex(uint64_t v) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, 16);
  return "0x" + std::string(buf, end);
}
// An unsigned number: decimal below 2^32, else hex (C: with a ull suffix).
std::string number(uint64_t v, bool c) {
  if (v < (uint64_t{1} << 32)) return std::to_string(v) + (c && v > 0x7fffffff ? "u" : "");
  return hex(v) + (c ? "ull" : "");
}
// A two's complement offset as a signed literal.
std::string offset(uint64_t v, bool c) {
  const auto s = static_cast<int64_t>(v);
  if (s >= 0) return number(v, c);
  return "-" + number(uint64_t{0} - v, c);
}
// A key byte delta in -128..127.
std::string delta(uint64_t v) { return std::to_string(int{static_cast<int8_t>(static_cast<uint8_t>(v))}); }

struct Flags {
  std::span<const NamedValue> table;
  std::string_view prefix;  // the rdma-core name's prefix
};
Flags flags_of(FieldKind k) {
  switch (k) {
    case FieldKind::Access: return {access_flag_names(), "IBV_ACCESS_"};
    case FieldKind::SendFlags: return {send_flag_names(), "IBV_SEND_"};
    case FieldKind::ReregFlags: return {rereg_flag_names(), "IBV_REREG_MR_"};
    case FieldKind::QpType: return {qp_type_names(), "IBV_QPT_"};
    default: return {qp_state_names(), "IBV_QPS_"};
  }
}
// The rdma-core name of a named value; DET's LOCAL_READ has none, the
// runtimes define MWC_ACCESS_LOCAL_READ.
std::string ibv_name(FieldKind k, std::string_view name, std::string_view ns) {
  if (k == FieldKind::Access && name == "LOCAL_READ") return "MWC_ACCESS_LOCAL_READ";
  return std::string(ns) + std::string(flags_of(k).prefix) + std::string(name);
}

// A flag set as an OR of names (`ns` qualifies them: "e." in Python).
std::string flag_set(FieldKind k, uint64_t v, std::string_view ns, bool c) {
  std::string s;
  uint64_t left = v;
  for (const auto& nv : flags_of(k).table) {
    if (!(v & nv.value)) continue;
    s += (s.empty() ? "" : " | ") + ibv_name(k, nv.name, ns);
    left &= ~uint64_t{nv.value};
  }
  if (left) s += (s.empty() ? "" : " | ") + number(left, c);
  return s.empty() ? "0" : s;
}
// An enum by name; a value with no name as a number.
std::string enum_value(FieldKind k, uint64_t v, std::string_view ns, bool c) {
  for (const auto& nv : flags_of(k).table)
    if (nv.value == v) return ibv_name(k, nv.name, ns);
  return number(v, c);
}

std::string literal(const FieldDesc& f, const Arg& a, bool c) {
  const std::string_view ns = c ? "" : "e.";
  if (is_handle(f.kind)) return a.h == kNoHandle ? (c ? "MWC_NONE" : "None") : std::to_string(a.h);
  switch (f.kind) {
    case FieldKind::U64: return number(a.v, c);
    case FieldKind::Access:
    case FieldKind::SendFlags:
    case FieldKind::ReregFlags: return flag_set(f.kind, a.v, ns, c);
    case FieldKind::QpType:
    case FieldKind::QpState: return enum_value(f.kind, a.v, ns, c);
    case FieldKind::Addr: {
      const std::string fn = c ? "MWC_ADDR_" : "Addr.";
      auto base = [&](std::string_view b) {
        return fn + std::string(c ? b : std::string_view(b == "BUF" ? "buf" : b == "MR" ? "mr" : "mw")) + "(" +
               std::to_string(a.h) + ", " + offset(a.v, c) + ")";
      };
      switch (static_cast<AddrBase>(a.tag)) {
        case AddrBase::Buf: return base("BUF");
        case AddrBase::Mr: return base("MR");
        case AddrBase::Mw: return base("MW");
        default: return fn + (c ? "RAW(" : "raw(") + number(a.v, c) + ")";
      }
    }
    case FieldKind::Rkey: {
      const std::string fn = c ? "MWC_RKEY_" : "Rkey.";
      auto base = [&](std::string_view cname, std::string_view pyname) {
        return fn + std::string(c ? cname : pyname) + "(" + std::to_string(a.h) + ", " + delta(a.v) + ")";
      };
      switch (static_cast<RkeyBase>(a.tag)) {
        case RkeyBase::MwCur: return base("MW", "mw");
        case RkeyBase::MwPrev: return base("PREV", "prev");
        case RkeyBase::Mr: return base("MR", "mr");
        default: return fn + (c ? "RAW(" : "raw(") + number(a.h, c) + ")";
      }
    }
    case FieldKind::Key:
      if (static_cast<KeyBase>(a.tag) == KeyBase::Abs)
        return (c ? "MWC_KEY_ABS(" : "Key.abs(") + number(layout::key_byte(a.v), c) + ")";
      return (c ? "MWC_KEY_REL(" : "Key.rel(") + delta(a.v) + ")";
    default: break;
  }
  return "0";
}

}  // namespace

std::string c_literal(const FieldDesc& f, const Arg& a) { return literal(f, a, true); }
std::string py_literal(const FieldDesc& f, const Arg& a) { return literal(f, a, false); }

std::string c_type(FieldKind k) {
  switch (k) {
    case FieldKind::U64: return "uint64_t";
    case FieldKind::Addr: return "struct mwc_addr";
    case FieldKind::Rkey: return "struct mwc_rkey";
    case FieldKind::Key: return "struct mwc_key";
    default: return "unsigned";
  }
}

}  // namespace mwc::exports
