#include "adapters/kernel/oops.hpp"

#include <algorithm>
#include <cctype>

namespace mwc::kernel {
namespace {

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Returns s without leading blanks.
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// Returns whether a console line (its timestamp and blanks taken off)
// opens a kernel's account of a fault, itself or after the name of who
// reports it ("watchdog: BUG: soft lockup"): one list for where an account
// starts and for what the summary keeps as the fault's headline.
bool opens_oops(std::string_view t) {
  // The reporter's name is one word before ": ".
  const size_t colon = t.find(": ");
  const bool named = colon != std::string_view::npos && t.substr(0, colon).find(' ') == std::string_view::npos;
  const std::string_view after = named ? t.substr(colon + 2) : std::string_view{};
  for (const std::string_view mark : {"BUG:", "Oops", "general protection fault", "WARNING:", "kernel BUG"})
    if (starts(t, mark) || starts(after, mark)) return true;
  return false;
}

// Returns a console line as the summary reads it: no timestamp, no serial
// console's \r, no leading blanks.
std::string_view bare(std::string_view raw) {
  std::string_view line = without_timestamp(raw);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return trim(line);
}

// Returns a fault's headline as the summary keeps it: a WARNING's "CPU: N
// PID: N " left out ("WARNING: CPU: 1 PID: 1139 at FILE:LINE FUNCTION").
std::string headline(std::string_view t) {
  if (!starts(t, "WARNING: CPU: ")) return std::string(t);
  const size_t at = t.find(" at ");
  return at == std::string_view::npos ? std::string(t) : "WARNING:" + std::string(t.substr(at));
}

// Returns the process id a fault's line names ("PID: 1139"), or 0.
int pid_named(std::string_view t) {
  const size_t at = t.find("PID: ");
  if (at == std::string_view::npos) return 0;
  int pid = 0;
  for (size_t i = at + 5; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && pid < 100000000; ++i)
    pid = pid * 10 + (t[i] - '0');
  return pid;
}

}  // namespace

std::string_view without_timestamp(std::string_view line) {
  std::string_view s = trim(line);
  if (s.empty() || s.front() != '[') return line;
  const size_t close = s.find(']');
  if (close == std::string_view::npos) return line;
  for (const char c : trim(s.substr(1, close - 1)))
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return line;
  s.remove_prefix(close + 1);
  return s.substr(0, 1) == " " ? s.substr(1) : s;
}

bool is_kernel_line(std::string_view line) {
  return without_timestamp(line).data() != line.data() && line.find_first_of("0123456789") < line.find(']');
}

std::string oops_summary(std::string_view console) {
  std::string all, kept;
  bool oops = false, rip = false, in_trace = false, traced = false;
  size_t frames = 0;
  for (size_t at = 0; at < console.size();) {
    const size_t nl = console.find('\n', at);
    const std::string_view raw = console.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? console.size() : nl + 1;
    std::string_view line = without_timestamp(raw);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a serial console's line end
    all.append(line).append("\n");
    const std::string_view t = trim(line);
    if (!oops && opens_oops(t)) {
      oops = true;
      kept.append(headline(t)).append("\n");
    } else if (oops && !rip && !in_trace && starts(t, "RIP: 0010:")) {  // the kernel's, once
      rip = true;
      kept.append(t).append("\n");
    } else if (oops && !traced && starts(t, "Call Trace:")) {  // the first one
      in_trace = traced = true;
      kept.append("Call Trace:\n");
    } else if (in_trace && (starts(t, "</TASK>") || starts(t, "RIP:") || starts(t, "---") || t.empty())) {
      in_trace = false;  // the frames end where user space's registers begin
    } else if (in_trace && !starts(t, "?") && !starts(t, "<") && frames < 16 &&
               t.find('+') != std::string_view::npos) {
      ++frames;
      kept.append(" ").append(t).append("\n");
    } else if (starts(t, "Kernel panic")) {
      kept.append(t).append("\n");
      break;
    }
  }
  return oops ? kept : all;
}

std::vector<KernelReport> kernel_reports(std::string_view log) {
  std::vector<KernelReport> out;
  size_t from = std::string_view::npos;  // where the report being read starts
  int pid = 0;
  const auto close = [&](size_t end) {
    if (from != std::string_view::npos) out.push_back({pid, oops_summary(log.substr(from, end - from))});
    from = std::string_view::npos, pid = 0;
  };
  for (size_t at = 0; at < log.size();) {
    const size_t nl = log.find('\n', at);
    const size_t next = nl == std::string_view::npos ? log.size() : nl + 1;
    const std::string_view t = bare(log.substr(at, next - at - (nl == std::string_view::npos ? 0 : 1)));
    if (opens_oops(t)) close(at), from = at;
    if (from != std::string_view::npos && pid == 0) pid = pid_named(t);
    if (from != std::string_view::npos && starts(t, "---[ end trace")) close(next);
    at = next;
  }
  close(log.size());
  return out;
}

std::string_view report_site(std::string_view account) { return account.substr(0, account.find('\n')); }

bool at_exit(std::string_view account) {
  for (size_t at = account.find("do_exit+"); at != std::string_view::npos; at = account.find("do_exit+", at + 1))
    if (at > 0 && (account[at - 1] == ' ' || account[at - 1] == '\n')) return true;
  return false;
}

std::string_view last_lines(std::string_view console, int n) {
  if (n <= 0) return console.substr(console.size());
  // Back over n line ends, and over the console's own last one if it has it.
  const int ends = n + (console.ends_with('\n') ? 1 : 0);
  size_t start = console.size();  // at the line end passed last
  for (int i = 0; i < ends; ++i) {
    const size_t nl = start == 0 ? std::string_view::npos : console.rfind('\n', start - 1);
    if (nl == std::string_view::npos) return console;  // fewer lines than n
    start = nl;
  }
  return console.substr(start + 1);
}

bool opens_account(std::string_view line) {
  const std::string_view t = bare(line);
  return opens_oops(t) || starts(t, "Kernel panic");
}

std::string console_account(std::string_view console) {
  // From the first line that opens an oops, or a panic with none before it.
  for (size_t at = 0; at < console.size();) {
    const size_t nl = console.find('\n', at);
    const size_t len = nl == std::string_view::npos ? std::string_view::npos : nl - at;
    if (opens_account(console.substr(at, len))) return oops_summary(console.substr(at));
    at = nl == std::string_view::npos ? console.size() : nl + 1;
  }
  return oops_summary(last_lines(console, kAccountTail));
}

}  // namespace mwc::kernel
