// What the C and Python exports say alike: the header that names the
// finding and lists the trace, the expected outcome of each op, and string
// literals that survive any text a trace or a summary holds.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "exports/export.hpp"

namespace mwc::exports {

// Returns how many ops an export runs: up to and including r.op (all of
// them when r.op is beyond the trace).
size_t ops_to_run(const Reproducer& r);
// Returns the canonical text of the outcome op i is expected to have ("*"
// when r.expected has none for it).
std::string expected_text(const Reproducer& r, size_t i);
// Returns the header's first line: "ID: SUMMARY".
std::string header_title(const Reproducer& r);
// Returns the header's other lines: the rule and its source, what the
// device did, and the first `n` ops of the trace in mwcheck's text form,
// each with its expected outcome.
std::vector<std::string> header_lines(const Reproducer& r, size_t n);
// Returns `s` with every occurrence of `end` (a comment's or a docstring's
// terminator) broken up, and control characters dropped.
std::string comment_safe(std::string_view s, std::string_view end);
// Returns the lines that say which environment variables set what
// (device_settings.def), with their defaults.
std::vector<std::string> settings_lines();
// Returns a C string literal of `s`.
std::string c_string(std::string_view s);
// Returns a Python string literal of `s`.
std::string py_string(std::string_view s);

}  // namespace mwc::exports
