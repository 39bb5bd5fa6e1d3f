#include "refmodel/op.hpp"

namespace mwc {
namespace {

#define MWC_DESC(kind, fname, mode, use, def, lo, hi) \
  FieldDesc{#fname, FieldKind::kind, FieldMode::mode, def, lo, hi, HandleUse::use},
#define OP(name, bin, kind, summary) constexpr FieldDesc kFields_##name[] = {MWC_FIELDS_##name(MWC_DESC)};
MWC_OPS(OP)
#undef OP
#undef MWC_DESC

constexpr OpDesc kOps[] = {
#define OP(name, bin, kind, summary) {#name, OpKind::kind, summary, kFields_##name},
    MWC_OPS(OP)
#undef OP
};

// A handle field says what it needs of its object; no other field does.
#define MWC_USE(kind, fname, mode, use, def, lo, hi)                             \
  static_assert(is_handle(FieldKind::kind) == (HandleUse::use != HandleUse::Val), \
                #fname ": a handle field needs a use other than Val, and only it");
#define OP(name, bin, kind, summary) MWC_FIELDS_##name(MWC_USE)
MWC_OPS(OP)
#undef OP
#undef MWC_USE

// Every op fits the fixed-size record.
#define OP(name, bin, kind, summary) \
  static_assert(std::size(kFields_##name) <= kMaxFields, #name " has too many fields");
MWC_OPS(OP)
#undef OP

}  // namespace

const OpDesc& op_desc(OpCode c) { return kOps[static_cast<int>(c)]; }

int op_from_name(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i)
    if (kOps[i].name == name) return i;
  return kOpCount;
}

namespace {
// Each op with every field at its default, made when compiling: decoders
// start each op from a copy.
constexpr auto kDefaultOps = [] {
  std::array<Op, kOpCount> ops{};
  for (int c = 0; c < kOpCount; ++c) {
    Op& op = ops[static_cast<size_t>(c)];
    op.code = static_cast<OpCode>(c);
    const auto& d = kOps[c];
    for (size_t i = 0; i < d.fields.size(); ++i) {
      const FieldDesc& f = d.fields[i];
      Arg& a = op.a[i];
      if (is_handle(f.kind)) a.h = kNoHandle;
      else if (f.kind == FieldKind::Key) a = Arg{f.def, kNoHandle, static_cast<uint8_t>(KeyBase::Rel)};
      else if (f.kind == FieldKind::Addr || f.kind == FieldKind::Rkey) a = Arg{0, kNoHandle, 0};
      else a.v = f.def;
    }
  }
  return ops;
}();
}  // namespace

const Op& default_op(OpCode c) { return kDefaultOps[static_cast<size_t>(c)]; }

}  // namespace mwc
