// Whole-file inputs (traces, recorder logs, reports), read in bounded
// memory: a folder, an unreadable path, a device or pipe that never ends,
// a line or a file beyond its limit is an error with a place, never an
// exception, an abort or unbounded growth.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "util/stdio_path.hpp"

struct stat;

namespace mwc {

struct InputLimits {
  size_t max_bytes;     // the whole input
  size_t max_line = 0;  // one line (text inputs); 0: no limit
  // An input that starts with this magic is binary: no line limit, and
  // binary_max_bytes instead of max_bytes.
  std::string_view binary_magic = {};
  size_t binary_max_bytes = 0;
};
// Traces loaded whole (run, diff, convert, export, conform's corpus):
// 256 MiB of text with lines up to 64 KiB, or .mwb up to 64 MiB, which
// decodes to about as much memory as the text limit (replay streams .mwb
// of any size).
inline constexpr InputLimits kTraceLimits{256u << 20, 64u << 10, "MWTB", 64u << 20};
// A recorder's event log, and a report.json read back (--baseline, --from).
inline constexpr InputLimits kLogLimits{256u << 20, 64u << 10};
inline constexpr InputLimits kReportLimits{64u << 20, 0};

// Where and why an input was refused.
struct InputError {
  size_t line = 1, col = 1;
  std::string message;  // "is a folder", "longer than 65536 bytes", ...
};

// Opens `path` for reading (a FIFO without writer does not block; it reads
// as empty; kStdioPath: a descriptor of standard input's own). Returns the
// descriptor and its stat, or -1 with `e` set when it cannot be opened or
// is a folder.
int open_input(const std::string& path, struct stat& st, InputError& e);
// Returns the message for a line over `max_line` bytes ("line longer than
// the limit of 64 KiB"), placed at line `line`, column max_line + 1.
InputError line_too_long(size_t line, size_t max_line);

// Reads `path` into `bytes`. Returns false with `e` set when the path is a
// folder or cannot be opened or read, when it holds more than
// `limits.max_bytes` bytes, or when a line is longer than `limits.max_line`;
// at most max_bytes (plus one read's worth) is ever held.
bool read_input(const std::string& path, const InputLimits& limits, std::string& bytes, InputError& e);
// The same for the rest of descriptor fd (open_input's, with its stat
// `st`), after the bytes `bytes` already holds (read from fd before: they
// count towards the limits). Closes fd.
bool read_rest(int fd, const struct stat& st, const InputLimits& limits, std::string& bytes, InputError& e);

}  // namespace mwc
