// A fuzzing campaign against the Soft-RoCE VM that ends in findings, as a
// driver developer wants them: rounds of `mwcheck fuzz` in the guest until
// the time (or the runs) is spent, the guest booted again, with the next
// seed, after it dies; then every divergent input, and every input the
// guest died in, judged as `conform --device` judges a corpus: against the
// specification (not the profile the fuzzer compared with), one finding per
// root cause, each shrunk on the device, in the same reports.
#pragma once
#include <ostream>

#include "cli/commands.hpp"

namespace mwc::cli {

// Runs one `mwcheck fuzz` in the guest (the VM is against[vm]), its
// reproducers written into o.out. Returns the exit status.
int fuzz_in_softroce(const FuzzOptions& o, int vm, std::ostream& out, std::ostream& err);

// Runs the whole campaign. Returns the exit status: 1 when there are
// findings, 0 when none, 2 for bad input or a VM that does not run.
int fuzz_device_campaign(const FuzzOptions& o, int vm, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
