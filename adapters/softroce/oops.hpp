// What of a guest kernel's console goes into a report: the same lines for
// the same crash on every run. A kernel log line carries its time since
// boot, and an oops the registers and stack addresses of that run; neither
// says what crashed, and both make two runs of an unchanged device differ.
#pragma once
#include <string>
#include <string_view>

namespace mwc::softroce {

// Returns `line` without its kernel timestamp ("[    4.807081] ").
std::string_view without_timestamp(std::string_view line);

// Returns an oops as the lines that name the crash: what happened (BUG:,
// Oops, general protection fault, WARNING:, kernel BUG), where (RIP's
// function), the reliable frames of the call trace (not those marked
// '?'), and the panic line; timestamps removed. A console with no oops
// comes back with only its timestamps removed.
std::string oops_summary(std::string_view console);

}  // namespace mwc::softroce
