// Tests of the verbs drive the program in-process, exactly as main() does.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"

namespace mwc::cli {

struct Ran {
  int status;
  std::string out, err;
};
// Returns what `mwcheck ARGS...` printed and its exit status.
inline Ran mwcheck(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = run_app(args, out, err);
  return {status, out.str(), err.str()};
}

}  // namespace mwc::cli
