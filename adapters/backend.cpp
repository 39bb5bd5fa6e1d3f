#include "adapters/backend.hpp"

#include "adapters/model_backend.hpp"
#include "adapters/verbs/verbs_backend.hpp"

namespace mwc {

bool is_softroce(std::string_view spec) {
  return spec == "device:softroce" || spec.starts_with("device:softroce:");
}

std::unique_ptr<Backend> make_backend(std::string_view spec, std::string& err,
                                      const DeviceConfig& device) {
  std::string_view body = spec;
  if (const size_t colon = spec.find(':'); colon != std::string_view::npos) {
    const std::string_view kind = spec.substr(0, colon);
    body = spec.substr(colon + 1);
    if (kind == "device") {
      if (is_softroce(spec)) {
        err = "'" + std::string(spec) + "' runs whole commands inside its VM, not as a backend here";
        return nullptr;
      }
      return make_verbs_backend(body, device, err);
    }
    if (kind != "profile") {
      err = "unknown backend '" + std::string(kind) + "' in '" + std::string(spec) +
            "' (backends: profile:NAME, device:NAME)";
      return nullptr;
    }
  }
  auto p = parse_profile(body, err);
  if (!p) return nullptr;
  // A profile adjusted by knobs is no column of the expectations.
  const bool plain = body.find('+') == std::string_view::npos;
  const int column = plain ? static_cast<int>(*profile_from_name(body)) : -1;
  return std::make_unique<ModelBackend>(std::move(*p), column);
}

}  // namespace mwc
