#include "adapters/backend.hpp"

#include "adapters/model_backend.hpp"

namespace mwc {

std::unique_ptr<Backend> make_backend(std::string_view spec, std::string& err) {
  std::string_view body = spec;
  if (const size_t colon = spec.find(':'); colon != std::string_view::npos) {
    const std::string_view kind = spec.substr(0, colon);
    if (kind != "profile") {
      err = "unknown backend '" + std::string(kind) + "' in '" + std::string(spec) +
            "' (backends: profile:NAME)";
      return nullptr;
    }
    body = spec.substr(colon + 1);
  }
  auto p = parse_profile(body, err);
  if (!p) return nullptr;
  // A profile adjusted by knobs is no column of the expectations.
  const bool plain = body.find('+') == std::string_view::npos;
  const int column = plain ? static_cast<int>(*profile_from_name(body)) : -1;
  return std::make_unique<ModelBackend>(std::move(*p), column);
}

}  // namespace mwc
