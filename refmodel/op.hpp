// Ops, generated from the op table (ops.def): the op codes, each op's field
// descriptors, the uniform Op record, and a typed view of each op's fields.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "refmodel/field.hpp"
#include "refmodel/ops.def"

namespace mwc {

enum class OpCode : uint8_t {
#define OP(name, bin, kind, summary) name,
  MWC_OPS(OP)
#undef OP
};
inline constexpr int kOpCount = 0
#define OP(name, bin, kind, summary) +1
    MWC_OPS(OP)
#undef OP
    ;

enum class OpKind : uint8_t { Resource, Post, Remote, Poll };
enum class FieldMode : uint8_t { Pos, Req, Opt };

struct FieldDesc {
  std::string_view name;
  FieldKind kind;
  FieldMode mode;
  uint64_t def;  // default value (Opt); for handles, an Opt default is none
  uint64_t lo, hi;  // valid range of a U64
  HandleUse use = HandleUse::Val;  // what a handle needs of its object before the op runs
};

struct OpDesc {
  std::string_view name;
  OpKind kind;
  std::string_view summary;
  std::span<const FieldDesc> fields;
};

// Returns the descriptor of an op (name, kind, fields in canonical order).
const OpDesc& op_desc(OpCode c);
// Returns the op with that text name, or kOpCount if none.
int op_from_name(std::string_view name);

// Returns whether op c is a bind: in the op table, a work request naming a
// window and the access it is to grant.
constexpr bool is_bind(OpCode c) {
  switch (c) {
#define MWC_NAMES_MW(kind, fname, mode, use, def, lo, hi) || FieldKind::kind == FieldKind::Mw
#define MWC_NAMES_ACCESS(kind, fname, mode, use, def, lo, hi) || FieldKind::kind == FieldKind::Access
#define OP(name, bin, kind, summary) \
  case OpCode::name:                 \
    return OpKind::kind == OpKind::Post && (false MWC_FIELDS_##name(MWC_NAMES_MW)) && \
           (false MWC_FIELDS_##name(MWC_NAMES_ACCESS));
    MWC_OPS(OP)
#undef OP
#undef MWC_NAMES_ACCESS
#undef MWC_NAMES_MW
  }
  return false;
}
static_assert(is_bind(OpCode::bind_mw) && is_bind(OpCode::wr_bind_mw) && is_bind(OpCode::det_bind) &&
              !is_bind(OpCode::alloc_mw) && !is_bind(OpCode::wr_local_inv));

inline constexpr int kMaxFields = 8;

// One op of a trace: its code and its field values in canonical order.
struct Op {
  OpCode code{};
  std::array<Arg, kMaxFields> a{};
  friend bool operator==(const Op&, const Op&) = default;
};

// Returns the op with every field at its default.
const Op& default_op(OpCode c);

// Typed views: args::bind_mw{op}.len and so on. Handles are uint32_t,
// numbers and flag sets uint64_t/uint32_t, composites stay Args. A view is
// also the op's builder: args::reg_mr b; (every field at its default)
// b.pd = 0; b.len = 4096; Op op = b.to_op(); a field the op table does not
// give the op does not compile.
namespace args {
template <FieldKind K> struct Type { using type = uint32_t; };
template <> struct Type<FieldKind::U64> { using type = uint64_t; };
template <> struct Type<FieldKind::Addr> { using type = Arg; };
template <> struct Type<FieldKind::Rkey> { using type = Arg; };
template <> struct Type<FieldKind::Key> { using type = Arg; };

template <FieldKind K>
typename Type<K>::type load(const Arg& a) {
  if constexpr (is_handle(K)) return a.h;
  else if constexpr (K == FieldKind::U64) return a.v;
  else if constexpr (K == FieldKind::Addr || K == FieldKind::Rkey || K == FieldKind::Key) return a;
  else return static_cast<uint32_t>(a.v);
}

// Returns the field value a typed value stands for (load's inverse).
template <FieldKind K>
Arg store(const typename Type<K>::type& x) {
  if constexpr (is_handle(K)) return Arg{0, x, 0};
  else if constexpr (K == FieldKind::Addr || K == FieldKind::Rkey || K == FieldKind::Key) return x;
  else return Arg{x, kNoHandle, 0};
}

#define MWC_VIEW_MEMBER(kind, fname, mode, use, def, lo, hi) \
  typename Type<FieldKind::kind>::type fname;
#define MWC_VIEW_LOAD(kind, fname, mode, use, def, lo, hi) \
  fname(load<FieldKind::kind>(op.a[i++])),
#define MWC_VIEW_STORE(kind, fname, mode, use, def, lo, hi) \
  op.a[i++] = store<FieldKind::kind>(fname);
#define OP(name, bin, kind, summary)                             \
  struct name {                                                  \
    static constexpr OpCode code = OpCode::name;                 \
    MWC_FIELDS_##name(MWC_VIEW_MEMBER)                           \
    name() : name(default_op(code)) {}                           \
    explicit name(const Op& op, int i = 0)                       \
        : MWC_FIELDS_##name(MWC_VIEW_LOAD) unused_(i) {}         \
    /* Returns the op these field values make. */                \
    Op to_op() const {                                           \
      Op op{code, {}};                                           \
      int i = 0;                                                 \
      MWC_FIELDS_##name(MWC_VIEW_STORE) return op;               \
    }                                                            \
   private:                                                      \
    /* Ends the list MWC_VIEW_LOAD makes (each item ends in a comma). */ \
    [[maybe_unused]] int unused_;                                \
  };
MWC_OPS(OP)
#undef OP
#undef MWC_VIEW_MEMBER
#undef MWC_VIEW_LOAD
#undef MWC_VIEW_STORE
}  // namespace args

// Calls backend.on_<name>(args::<name>{op}) for the op's code and returns
// what the handler returns. Every backend dispatches through this one switch,
// so a backend without a handler for some op fails to compile.
template <class Backend>
auto dispatch(Backend& backend, const Op& op) {
  switch (op.code) {
#define OP(name, bin, kind, summary) \
  case OpCode::name:            \
    return backend.on_##name(args::name{op});
    MWC_OPS(OP)
#undef OP
  }
  __builtin_unreachable();
}

}  // namespace mwc
