#include "cli/device_options.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "adapters/device_settings.hpp"
#include "adapters/faults.hpp"
#include "adapters/softroce/vm.hpp"
#include "cli/numbers.hpp"
#include "util/quote.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

DeviceOptions add_device_options(CLI::App* c, DeviceConfig& d) {
  DeviceOptions o;
  o.op_timeout = c->add_option("--op-timeout", d.op_timeout_ms,
                               "Device: milliseconds a completion may take before it is TIMEOUT")
                     ->capture_default_str()
                     ->check(in_range(setting::op_timeout_ms.lo, setting::op_timeout_ms.hi));
  std::string faults;
  for (const auto& f : fault_descs()) faults += fmt::format("; {}:TRACE: {}", f.name, f.what);
  o.inject = c->add_option("--inject", d.inject,
                           "Device self-test: inject a fault into the trace TRACE (its file name)" + faults)
                 ->allow_extra_args(false);
  o.kvm = c->add_flag("--kvm", d.kvm,
                      "Soft-RoCE: boot with KVM (falls back to TCG when the guest does not come up)");
  o.port = c->add_option("--port", d.port, "Device: the port the QPs use (mwcheck devices lists them)")
               ->capture_default_str()
               ->check(in_range(setting::port.lo, setting::port.hi));
  o.gid_index = c->add_option("--gid-index", d.gid_index,
                              "Device: the GID table index loopback connections address (default: the "
                              "first RoCE v2 IPv4 GID, on InfiniBand the first GID)")
                    ->check(in_range(setting::gid_index.lo, setting::gid_index.hi));
  return o;
}

namespace {

// Returns whether the fault's TRACE names the file: its name without the
// extension, as the device matches it (in the Soft-RoCE guest, files are
// copies named NNNNN-NAME).
bool names(const std::string& trace, const std::string& file) {
  const std::string stem = fs::path(file).stem().string();
  return stem == trace || stem.ends_with("-" + trace);
}

// Checks one --inject and writes it back as the device matches it (FAULT:NAME).
// Returns false after printing why.
bool check_inject(std::string_view verb, std::string& spec, const DeviceTarget& where, std::ostream& err) {
  const size_t colon = spec.find(':');
  const auto fault = fault_from_name(std::string_view(spec).substr(0, colon));
  if (colon == std::string::npos || !fault) {
    err << fmt::format("mwcheck {}: error: --inject {}: no such fault (faults: {})\n", verb, quote(spec),
                       fault_specs());
    return false;
  }
  std::string trace = spec.substr(colon + 1);
  // A file name given for the trace's name does what it says.
  if (trace.ends_with(".mwt") || trace.ends_with(".mwb") || trace.find('/') != std::string::npos)
    trace = fs::path(trace).stem().string();
  if (trace.empty()) {
    err << fmt::format("mwcheck {}: error: --inject {}: give the trace after ':'\n", verb, quote(spec));
    return false;
  }
  if (fault->name == "guest-panic" && !where.softroce && !softroce::in_guest()) {
    err << fmt::format("mwcheck {}: error: --inject {}: guest-panic fires only inside the Soft-RoCE VM "
                       "(--device softroce), never on this machine's device\n",
                       verb, quote(spec));
    return false;
  }
  // Inside the guest the host has checked already: after a reboot the guest
  // runs only the traces left, and a fault that fired before names one gone.
  if (!softroce::in_guest() &&
      std::none_of(where.traces.begin(), where.traces.end(), [&](const auto& f) { return names(trace, f); })) {
    std::string runs;
    for (size_t i = 0; i < where.traces.size() && i < 5; ++i)
      runs += (runs.empty() ? "" : ", ") + fs::path(where.traces[i]).stem().string();
    if (where.traces.size() > 5) runs += ", ...";
    err << fmt::format("mwcheck {}: error: --inject {}: the fault never fires: no trace {} runs here "
                       "({})\n",
                       verb, quote(spec), quote(trace), runs.empty() ? "no trace runs" : "traces: " + runs);
    return false;
  }
  spec = std::string(fault->name) + ":" + trace;
  return true;
}

}  // namespace

bool check_device_options(std::string_view verb, const DeviceOptions& given, const DeviceTarget& where,
                          DeviceConfig& d, std::ostream& err) {
  if (!where.device) {
    for (const CLI::Option* o : {given.op_timeout, given.inject, given.kvm, given.port, given.gid_index})
      if (o && o->count()) {
        err << fmt::format("mwcheck {}: error: {} is for a device, and no device is named (--device, or "
                           "-a device:NAME)\n",
                           verb, o->get_name());
        return false;
      }
    return true;
  }
  if (where.softroce && d.port != 1) {
    err << fmt::format("mwcheck {}: error: --port {}: the Soft-RoCE VM's rxe0 has one port, port 1\n", verb,
                       d.port);
    return false;
  }
  for (auto& spec : d.inject)
    if (!check_inject(verb, spec, where, err)) return false;
  return true;
}

}  // namespace mwc::cli
