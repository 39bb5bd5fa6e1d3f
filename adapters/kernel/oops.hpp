// What of a kernel's console or log goes into a report: the same lines for
// the same crash on every run. A kernel log line carries its time since
// boot, and an oops the registers and stack addresses of that run; neither
// says what crashed, and both make two runs of an unchanged device differ.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mwc::kernel {

// Returns `line` without its kernel timestamp ("[    4.807081] ").
std::string_view without_timestamp(std::string_view line);
// Returns whether a console line is the kernel's own: it starts with the
// kernel's timestamp.
bool is_kernel_line(std::string_view line);

// Returns an oops as the lines that name the crash: what happened (a line
// that starts with BUG:, Oops, general protection fault, WARNING: or kernel
// BUG, or does after its reporter's name: "watchdog: BUG:"), where (RIP's
// function), the reliable frames of the call trace (not those marked
// '?'), and the panic line; timestamps removed, and a WARNING's CPU and
// PID, which differ from run to run. A console with no oops
// comes back with only its timestamps removed.
std::string oops_summary(std::string_view console);

// One fault the kernel reported (a WARNING, BUG or oops): the process it
// ran in as the report names it (0: none named), and its account
// (oops_summary()).
struct KernelReport {
  int pid = 0;
  std::string account;
};

// Returns the faults reported in `log` (console lines, with or without
// timestamps), in order: each from a line that opens one (as
// oops_summary() sees it) up to "---[ end trace" or the next one.
std::vector<KernelReport> kernel_reports(std::string_view log);

// Returns a report's account's first line: what the kernel reported and
// where (a WARNING's file, line and function; an oops's BUG line), the
// same on every run of one kernel.
std::string_view report_site(std::string_view account);

// Returns whether a report came as its process exited: its call trace runs
// through do_exit, the kernel closing what the process left open (the
// verbs of a process that crashed), not a verb the process called.
bool at_exit(std::string_view account);

// Returns the last `n` lines of `console` (all of it when it has fewer;
// an empty console gives an empty string).
std::string_view last_lines(std::string_view console, int n);

// Returns whether a console line opens what a report says of a console:
// an oops as oops_summary() sees one, or a panic.
bool opens_account(std::string_view line);

// How many last lines an account without a fault keeps.
inline constexpr int kAccountTail = 30;

// Returns what a report says of a guest's console: from the first line
// that opens it (opens_account()), the summary of it; else its last
// kAccountTail lines without their times.
// A guest that printed nothing (an emulator that died at once, a boot that
// stayed silent) gives an empty account, never an error.
std::string console_account(std::string_view console);

}  // namespace mwc::kernel
