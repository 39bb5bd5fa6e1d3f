// The settings of a device run (device_settings.def) as values.
#pragma once
#include <string_view>

#include "adapters/device_settings.def"

namespace mwc {

struct DeviceSetting {
  std::string_view env;  // the exports' environment variable
  long lo, hi, def;      // the range it must lie in, and its default
};

namespace setting {
#define S(f, env, lo, hi, def) inline constexpr DeviceSetting f{#env, lo, hi, def};
MWC_DEVICE_SETTINGS(S)
#undef S
}  // namespace setting

// Every setting, in the table's order.
inline constexpr DeviceSetting kDeviceSettings[] = {
#define S(f, env, lo, hi, def) setting::f,
    MWC_DEVICE_SETTINGS(S)
#undef S
};

inline constexpr int kSettleMs = MWC_SETTLE_MS;

}  // namespace mwc
