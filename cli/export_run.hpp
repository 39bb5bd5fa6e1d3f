// Running exported reproducers on a device (mwcheck export --device).
#pragma once
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/backend.hpp"

namespace mwc::cli {

// Each program's lines in the output: "EXPORT-RUN NAME: start", then the
// program's own output, then "EXPORT-RUN NAME: exit status N" (or "died of
// signal N (...)", "was killed after S s (TIMEOUT)", "not run (...)").
inline constexpr std::string_view kExportRunMarker = "EXPORT-RUN";

// Runs each program here (a .py with python3 -v), one after another, in
// child processes with their output on `out`. Returns 0.
int run_exports_here(const std::vector<std::string>& programs, std::ostream& out);

// Compiles DIR/repro.c on this machine and runs it (and DIR/test_repro.py
// when `python`, in a guest image with python3 and pyverbs) in the
// Soft-RoCE VM `device` names. Returns the guest command's status, or 2
// when the program does not compile or the VM cannot run.
int run_exports_in_softroce(const std::string& device, const DeviceConfig& dev, const std::string& dir,
                            bool python, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
