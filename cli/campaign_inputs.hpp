// Which of a device campaign's inputs are worth judging. Every round finds
// the same divergences again (a campaign of 30 minutes keeps over a
// thousand inputs for a few dozen kinds), and judging one on the device
// costs a run, a shrink and, for an input that kills the guest, a reboot.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mwc::cli {

// Returns what a kept input's file name says it found: the rules of the
// guest's finding ("device.observed-bind.ok" of "r03-finding-12-device.
// observed-bind.ok.mwt"), or "guest-kernel" for an input the guest died in.
std::string input_kind(std::string_view file_name);

// Returns the kernel's account a guest-death input carries in its
// "# kernel: " comment lines, joined by newlines ("" when there is none).
std::string kernel_account(std::string_view trace_text);

struct JudgeChoice {
  std::vector<std::string> paths;  // the inputs to judge, in file-name order
  size_t kinds = 0;                // distinct kinds among all inputs
};

// Returns the inputs of `dir` to judge: the `per_kind` smallest of each
// kind, and of the inputs the guest died in the smallest one per crash
// signature (the function the kernel crashed in; one for all silences).
// Sizes tie-break by name, so the choice is the same on every run.
JudgeChoice choose_inputs(const std::string& dir, size_t per_kind);

}  // namespace mwc::cli
