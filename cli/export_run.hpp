// Running exported reproducers on a device (mwcheck export --device).
#pragma once
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/backend.hpp"

namespace mwc::cli {

// Each program's lines in the output: "EXPORT-RUN PATH: start", then the
// program's own output, then "EXPORT-RUN PATH: exit status N" (or "died of
// signal N (...)", "was killed after S s (TIMEOUT)", "not run (...)"); PATH
// is the host's path of the program.
inline constexpr std::string_view kExportRunMarker = "EXPORT-RUN";

// Runs each program here (a .py with python3 -v), one after another, in
// child processes with their output on `out`. Returns 0.
int run_exports_here(const std::vector<std::string>& programs, std::ostream& out);

// Compiles DIR/repro.c on this machine for each of `dirs` and runs them
// all (and each DIR/test_repro.py after its program when `python`, in a
// guest image with python3 and pyverbs) in one boot of the Soft-RoCE VM
// `device` names (again after a program that kills the guest kernel, for
// the rest). Returns 0 when every program ran to its end, 1 when one
// killed the guest kernel, or 2 when a program does not compile or the VM
// cannot run.
int run_exports_in_softroce(const std::string& device, const DeviceConfig& dev,
                            const std::vector<std::string>& dirs, bool python, std::ostream& out,
                            std::ostream& err);

}  // namespace mwc::cli
