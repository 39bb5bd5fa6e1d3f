#include "adapters/backend.hpp"

#include "adapters/model_backend.hpp"
#include "util/quote.hpp"
#ifndef MWCHECK_NO_DEVICES
#include "adapters/verbs/verbs_backend.hpp"
#endif

namespace mwc {
namespace {

std::unique_ptr<Backend> make_mutant(std::string_view spec, std::string_view name, std::string& err) {
  const auto m = mutant_from_name(name);
  if (!m) {
    err = "unknown mutant " + quote(name) + " in " + quote(spec) + " (mutants:";
    for (const auto& d : mutant_descs()) err += " " + std::string(d.name);
    err += ")";
    return nullptr;
  }
  const ProfileId base = mutant_descs()[static_cast<int>(*m) - 1].base;
  return std::make_unique<ModelBackend>(profile(base), static_cast<int>(base), *m);
}

}  // namespace

bool is_softroce(std::string_view spec) {
  return spec == "device:softroce" || spec.starts_with("device:softroce:");
}

std::unique_ptr<Backend> make_backend(std::string_view spec, std::string& err,
                                      const DeviceConfig& device) {
  std::string_view body = spec;
  if (const size_t colon = spec.find(':'); colon != std::string_view::npos) {
    const std::string_view kind = spec.substr(0, colon);
    body = spec.substr(colon + 1);
    if (kind == "mutant") return make_mutant(spec, body, err);
    if (kind == "device") {
#ifdef MWCHECK_NO_DEVICES
      (void)device;
      err = "this build of mwcheck has no device support";
      return nullptr;
#else
      if (is_softroce(spec)) {
        err = quote(spec) + " runs whole commands inside its VM, not as a backend here";
        return nullptr;
      }
      return make_verbs_backend(body, device, err);
#endif
    }
    if (kind != "profile") {
      err = "unknown backend " + quote(kind) + " in " + quote(spec) +
            " (backends: profile:NAME, mutant:NAME, device:NAME)";
      return nullptr;
    }
  }
  auto p = parse_profile(body, err);
  if (!p) return nullptr;
  // A profile adjusted by knobs, or a driver's later release, is no column
  // of the expectations.
  const auto plain = profile_from_name(body);
  const int column = plain ? static_cast<int>(*plain) : -1;
  return std::make_unique<ModelBackend>(std::move(*p), column);
}

}  // namespace mwc
