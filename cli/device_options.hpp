// The options every command that can run on a device shares (--op-timeout,
// --inject, --kvm, --port, --gid-index), and their checks before anything
// runs.
#pragma once
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "adapters/backend.hpp"

namespace mwc::cli {

// What the user gave of a command's device options.
struct DeviceOptions {
  CLI::Option *op_timeout = nullptr, *inject = nullptr, *kvm = nullptr, *port = nullptr, *gid_index = nullptr;
};

// Adds --op-timeout, --inject, --kvm, --port and --gid-index to a command.
// Returns them.
DeviceOptions add_device_options(CLI::App* c, DeviceConfig& d);

// Where a command runs: on a device at all, on the Soft-RoCE VM, and the
// trace files it runs there (paths or names).
struct DeviceTarget {
  bool device = false;
  bool softroce = false;
  std::vector<std::string> traces;
};

// Checks the device options against where the command runs: none without
// a device; each --inject a fault of faults.def on a trace the command runs
// (a .mwt or .mwb suffix, or a folder, is dropped from `d.inject` as the
// device matches names), guest-panic only in the Soft-RoCE VM, --port 1
// only there (rxe0 has one port). Returns
// false after printing "mwcheck VERB: error: ..." to `err`.
bool check_device_options(std::string_view verb, const DeviceOptions& given, const DeviceTarget& where,
                          DeviceConfig& d, std::ostream& err);

}  // namespace mwc::cli
