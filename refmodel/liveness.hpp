// The skip rule, written once: an op whose handles do not name what the op
// table's `use` column asks (a live object for a handle the op uses, a free
// slot for one it makes) is skipped, never called. Every backend's dispatch
// goes through run_ready(), asking its own object tables through one
// question: slot<K>(h), what slot h of kind K holds now.
#pragma once
#include <cstdint>

#include "refmodel/op.hpp"

namespace mwc {

// What one slot of a backend's object table holds: `outside` past the
// table's end.
enum class Slot : uint8_t { outside, free, live };

// Returns whether handle value v of a field of kind K and use U is as the op
// needs it, asking the backend's tables `t`. Fields that are no handle, and
// handles the handler checks itself (Any), are always ready.
template <FieldKind K, HandleUse U, class Tables, class V>
[[gnu::always_inline]] inline bool handle_ready(const Tables& t, const V& v) {
  if constexpr (!is_handle(K) || U == HandleUse::Val || U == HandleUse::Any) {
    return true;
  } else if constexpr (U == HandleUse::New) {
    return t.template slot<handle_kind(K)>(v) == Slot::free;
  } else if constexpr (U == HandleUse::Live) {
    return t.template slot<handle_kind(K)>(v) == Slot::live;
  } else {
    static_assert(U == HandleUse::OptLive);
    return v == kNoHandle || t.template slot<handle_kind(K)>(v) == Slot::live;
  }
}

// handles_ready(t, a): returns whether every handle of op view `a` is as
// its use says, in the order of the op's fields.
#define MWC_READY(kind, fname, mode, use, def, lo, hi) \
  &&handle_ready<FieldKind::kind, HandleUse::use>(t, a.fname)
#define OP(name, bin, kind, summary)                                               \
  template <class Tables>                                                          \
  [[gnu::always_inline]] inline bool handles_ready(const Tables& t, const args::name& a) { \
    return true MWC_FIELDS_##name(MWC_READY);                                      \
  }
MWC_OPS(OP)
#undef OP
#undef MWC_READY

// run_ready(backend, a): returns backend.on_<name>(a) when a's handles are
// ready, else backend.skipped(), the backend's SKIP outcome.
#define OP(name, bin, kind, summary)                                                 \
  template <class Backend>                                                           \
  [[gnu::always_inline]] inline auto run_ready(Backend& b, const args::name& a) {    \
    if (!handles_ready(b, a)) [[unlikely]]                                           \
      return b.skipped();                                                            \
    return b.on_##name(a);                                                           \
  }
MWC_OPS(OP)
#undef OP

// Returns run_ready(backend, the typed view of op): the dispatch every
// backend that keeps object tables uses.
template <class Backend>
auto dispatch_ready(Backend& backend, const Op& op) {
  switch (op.code) {
#define OP(name, bin, kind, summary) \
  case OpCode::name:                 \
    return run_ready(backend, args::name{op});
    MWC_OPS(OP)
#undef OP
  }
  __builtin_unreachable();
}

}  // namespace mwc
