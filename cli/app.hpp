// The mwcheck program as a function, so that tests run it in-process.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace mwc::cli {

// Exit statuses: 0 success, 1 a check failed (mismatch, divergence),
// 2 bad input or bad arguments, 3 an error inside mwcheck (a bug).
inline constexpr int kExitOk = 0, kExitFail = 1, kExitBadInput = 2, kExitInternal = 3;

// Runs `mwcheck ARGS...` (args excludes the program name) and returns its
// exit status; writes what the program prints to out and err.
int run_app(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
