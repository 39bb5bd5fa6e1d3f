// A libibverbs device as a backend: each trace runs in a child process
// (adapters/isolate.hpp) through a verbs Session.
#pragma once
#include <memory>
#include <string>
#include <string_view>

#include "adapters/backend.hpp"

namespace mwc {

// Returns the backend of ibverbs device `name`, or nullptr with `err` set
// (no such device, or a bad fault injection).
std::unique_ptr<Backend> make_verbs_backend(std::string_view name, const DeviceConfig& cfg,
                                            std::string& err);
// Returns the names of the ibverbs devices of this machine.
std::vector<std::string> verbs_device_names();

}  // namespace mwc
