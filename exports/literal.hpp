// One literal renderer per field kind, for each export language: how a
// trace's field value is spelled as an argument of the runtime's op
// functions (exports/runtime.c, exports/runtime.py).
#pragma once
#include <string>

#include "refmodel/op.hpp"

namespace mwc::exports {

// Returns the C expression of field `f`'s value `a`: handles as indices
// (MWC_NONE for none), numbers as integer literals, flag sets as ORs of
// IBV_* names, enums by IBV_* name, addresses, rkeys and key bytes as the
// runtime's MWC_ADDR_*, MWC_RKEY_*, MWC_KEY_* values naming their base.
std::string c_literal(const FieldDesc& f, const Arg& a);
// Returns the C type of a parameter of field kind `k` in the runtime.
std::string c_type(FieldKind k);
// Returns the Python expression of the same value (None for no handle,
// e.IBV_* names, Addr/Rkey/Key helpers of the runtime).
std::string py_literal(const FieldDesc& f, const Arg& a);

}  // namespace mwc::exports
