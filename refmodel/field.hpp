// Field kinds of the op table and the uniform argument record every field
// value is stored in.
#pragma once
#include <cstdint>

namespace mwc {

enum class FieldKind : uint8_t {
  Buf, Pd, Mr, Mw, Qp,          // handles: b0, p0, m0, w0, q0
  U64,                          // a number in the field's [lo, hi]
  Access, SendFlags, ReregFlags,  // flag sets: A|B or 0
  QpType, QpState,              // enums by name
  Addr,                         // address: b0+16, m0, w0-8, 0x1000
  Rkey,                         // rkey: w0, w0.prev, w0+1, m0, 0x1234
  Key,                          // key byte: +1 (relative to current), 0x12
};

// The kinds of object a handle may name. caps in a Trace is indexed by it.
enum class HandleKind : uint8_t { Buf, Pd, Mr, Mw, Qp };
inline constexpr int kHandleKinds = 5;
inline constexpr char kHandlePrefix[kHandleKinds] = {'b', 'p', 'm', 'w', 'q'};
// Largest number of objects of each kind one trace may name. MR and MW
// indices share the 24-bit rkey index space, so they stay below 2^20 each.
inline constexpr uint32_t kMaxCap[kHandleKinds] = {1u << 16, 1u << 16, 1u << 20,
                                                   1u << 20, 1u << 16};
inline constexpr uint32_t kNoHandle = 0xffffffffu;

// What a handle field needs of the object it names before the op runs
// (the op table's `use` column): Val for a field that is no handle; Live:
// the op uses the object; New: the op makes it, so the slot must be free;
// OptLive: no handle (kNoHandle) or a live object; Any: the handler decides.
enum class HandleUse : uint8_t { Val, Live, New, OptLive, Any };

// Returns whether a kind is a handle, and which.
constexpr bool is_handle(FieldKind k) { return k <= FieldKind::Qp; }
constexpr HandleKind handle_kind(FieldKind k) { return static_cast<HandleKind>(k); }

// Tags of composite values.
enum class AddrBase : uint8_t { Raw, Buf, Mr, Mw };      // base + offset
enum class RkeyBase : uint8_t { Raw, MwCur, MwPrev, Mr };  // key byte + delta
enum class KeyBase : uint8_t { Rel, Abs };

// One field's value. Handles use h; numbers, flags and enums use v;
// Addr: tag = AddrBase, h = base object, v = offset (two's complement);
// Rkey: tag = RkeyBase, h = object (or the raw rkey), v = key byte delta;
// Key: tag = KeyBase, v = delta or absolute byte.
struct Arg {
  uint64_t v = 0;
  uint32_t h = kNoHandle;
  uint8_t tag = 0;
  friend bool operator==(const Arg&, const Arg&) = default;
};

}  // namespace mwc
