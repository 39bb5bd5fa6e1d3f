#include "adapters/faults.hpp"

namespace mwc {
namespace {
constexpr FaultDesc kFaults[] = {
#define F(id, name, what) FaultDesc{Fault::id, name, what},
    MWC_FAULTS(F)
#undef F
};
}  // namespace

std::span<const FaultDesc> fault_descs() { return kFaults; }

std::string fault_specs() {
  std::string all;
  for (const auto& f : kFaults) all += (all.empty() ? "" : ", ") + std::string(f.name) + ":TRACE";
  return all;
}

std::optional<FaultDesc> fault_from_name(std::string_view name) {
  for (const auto& f : kFaults)
    if (f.name == name) return f;
  return std::nullopt;
}

}  // namespace mwc
