// The faults a device self-test may inject (faults.def).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "adapters/faults.def"

namespace mwc {

enum class Fault : uint8_t {
  none,
#define F(id, name, what) id,
  MWC_FAULTS(F)
#undef F
};

struct FaultDesc {
  Fault id;
  std::string_view name;  // as --inject writes it: "provider-crash"
  std::string_view what;
};
// Returns the fault table of faults.def.
std::span<const FaultDesc> fault_descs();
// Returns the faults as messages list them: "provider-crash:TRACE, ...".
std::string fault_specs();
// Returns the fault named so, or nothing.
std::optional<FaultDesc> fault_from_name(std::string_view name);

}  // namespace mwc
