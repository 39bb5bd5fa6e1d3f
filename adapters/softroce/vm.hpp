// The Soft-RoCE virtual machine: a Debian kernel with rdma_rxe under qemu,
// booted from an initramfs that holds this very mwcheck binary. A command
// such as `mwcheck conform --device softroce` runs itself inside the guest
// against rxe0, trace by trace; this file boots the guest, feeds it the
// traces, reads back what the guest printed, and, when the guest kernel
// panics or hangs, reports the trace that was running and boots again for
// the rest. Facts it relies on are in adapters/softroce/init and build-image.
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/softroce/markers.hpp"

namespace mwc::softroce {

struct VmOptions {
  std::string kernel;       // "" (bookworm's linux-image-amd64), "6.12", or a .deb path
  bool kvm = false;         // try KVM first (falls back to TCG when it does not boot)
  int quiet_limit_s = 90;   // a guest whose program prints nothing this long is hung (the kernel's lines do not count)
  int max_boots = 1000;     // after a guest death, boot again at most this often in all
  std::string image_script;  // build-image; empty: the one in mwcheck's data folder
  // Programs the guest has on its PATH (/usr/local/bin), each with its
  // shared libraries: what `mwcheck record` runs there.
  std::vector<std::string> programs;
};

// Parses "softroce", "softroce:6.12", "softroce:/path/linux-image.deb".
// Returns false for anything else.
bool parse_device(std::string_view spec, VmOptions& o);

// Builds (or finds in the cache) what `o` boots, without booting it, so
// that a kernel Debian does not package is said before another device's
// minutes. Returns false, with why in `err`, when it cannot be built (the
// builder says which part on standard error). A process builds what one
// set of options boots once: every boot after takes the same parts, built
// again only when one is gone.
bool prepare_image(const VmOptions& o, std::string& err);

struct VmTimes {
  double image_s = 0, boot_s = 0, run_s = 0, total_s = 0;
  int boots = 0;
};

// What the guest ran and how it ended, for one list of traces.
struct GuestRun {
  std::string output;          // the guest command's standard output, all boots
  int exit_code = 0;           // of the last boot's command
  std::string kernel_release;  // uname -r of the guest
  VmTimes times;
  std::string error;           // set when the VM could not run at all
  std::string incident;        // the guest died after its last trace (while minimizing)
  std::string lost_input;      // the guest died in this input (text), which was no trace file
  long lost_op = -1;           // ... in this op of it
  std::string lost_console;    // ... and the kernel's account of it (oops_summary)
};

// Called when a trace was running as the guest died: `op` is the op it
// was in (-1: unknown), `how` "CRASH" (the kernel panicked) or "TIMEOUT"
// (the guest went silent), `detail` the console's account.
using LostTrace = std::function<void(size_t index, long op, const std::string& how,
                                     const std::string& detail)>;
// Called with each line the guest prints to its console (progress).
using ConsoleLine = std::function<void(const std::string& line)>;

// Runs `mwcheck ARGS...` in the guest with copies of `files` in its folder
// `corpus`, as corpus/NNNNN-NAME (NNNNN: the place in `files`), named after
// ARGS too when `files_as_args`. Boots
// again after a dead guest, for the files after the one it died on.
// Returns the output and times.
GuestRun run_in_guest(const VmOptions& o, const std::vector<std::string>& args,
                      const std::vector<std::string>& files, bool files_as_args,
                      const LostTrace& lost, const ConsoleLine& console);

// Where the guest keeps VmOptions::programs.
inline constexpr std::string_view kGuestProgramDir = "/usr/local/bin";
// Returns whether this process runs inside the Soft-RoCE guest.
bool in_guest();

// Inside the guest: tells the host that trace `i` of the list starts, or
// that every trace has run (what follows, shrinking, may still die).
void mark_trace(size_t i, std::ostream& err);
void mark_traces_done(std::ostream& err);
// Inside the guest: tells the host that the guest is alive and still busy.
void mark_alive(std::ostream& err);
// Inside the guest: tells the host which candidate of shrinking runs now,
// so that a candidate that kills the guest is known by its hash.
void mark_candidate(uint64_t hash, std::ostream& err);

}  // namespace mwc::softroce
