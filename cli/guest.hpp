// Commands that name the Soft-RoCE VM run themselves inside it: the same
// mwcheck binary, against the guest's rxe0, on copies of the trace files.
#pragma once
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/backend.hpp"
#include "adapters/softroce/vm.hpp"

namespace mwc::cli {

// Returns whether a line of the guest's console is one mwcheck printed on
// its standard error there: "mwcheck ...: error: ...", "FILE:LINE:COL:
// error: ..." or run --check's "FILE:LINE: mismatch under ...".
bool guest_said(std::string_view line);

// Returns the index of the first spec naming the Soft-RoCE VM, or -1 (always
// -1 inside the guest itself).
int softroce_spec(const std::vector<std::string>& specs);

// Returns whether the backends given beside the VM's (`specs` but its
// `vm`th) can run in it, after printing why not (mwcheck VERB: error: ...):
// each is made here first, so that a profile or mutant that does not
// exist is said with no boot; another device, another VM's included, is
// refused, as the VM holds its rxe0 alone (the same VM named twice is
// rxe0 against itself).
bool guest_backends_ok(const std::vector<std::string>& specs, int vm, const DeviceConfig& dev,
                       std::string_view verb, std::ostream& err);

// The file run_args_in_softroce writes into its out_dir when the guest
// kernel died in an input that was no trace file (a fuzzer's): that input,
// up to the op it died in.
inline constexpr std::string_view kGuestKernelFinding = "finding-guest-kernel.mwt";
// Heads each line of the kernel's account in that file.
inline constexpr std::string_view kKernelAccountLine = "# kernel: ";

// What a guest command asks of the VM beyond its arguments and files.
struct GuestSetup {
  std::vector<std::string> programs;  // on the guest's PATH (VmOptions::programs)
  softroce::LostTrace lost;           // the guest died in file i: instead of the trace report
  softroce::ConsoleLine console;      // each line the guest prints on its console
  bool announce_files = true;         // say "wrote PATH" for each file the guest sent
  // The files are traces the guest loads whole: each is loaded here first,
  // so that one that does not parse is said in its place with no boot.
  bool traces = false;
};

// Runs `mwcheck ARGS... FILES...` in the VM that `spec` names, where ARGS
// name the guest's device as device:rxe0 (FILES are left out of ARGS, and
// only copied into the guest's folder `corpus`, when `files_as_args` is
// false; `-` is standard input); prints the guest's output with the host's
// file names, each trace lost to a dead guest, and the timings; writes the
// files the guest sent into `out_dir`. Returns the guest command's exit
// status (2, with no boot, when a file cannot be read or, setup.traces,
// does not load as a trace; 2 when the VM could
// not run; at least 1 when the guest kernel died in a file).
int run_args_in_softroce(const std::string& spec, const DeviceConfig& dev,
                         const std::vector<std::string>& args,
                         const std::vector<std::string>& files, std::ostream& out,
                         std::ostream& err, bool files_as_args = true,
                         const std::string& out_dir = "", const GuestSetup& setup = {});

// Inside the guest: sends a file the command wrote back to the host, which
// puts it into the folder run_args_in_softroce was given.
void send_file(const std::string& name, const std::string& text, std::ostream& out);

// Returns the arguments that hand a device configuration on to the guest.
std::vector<std::string> device_args(const DeviceConfig& d);

using softroce::mark_trace;
using softroce::mark_traces_done;

}  // namespace mwc::cli
