// Tests of the verbs drive the program in-process, exactly as main() does.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "util/test_files.hpp"

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

// How a test's standard input comes: a file's bytes (`< file`), or a pipe
// whose writer wrote them and left.
enum class Stdin { file, pipe };
// Returns what `mwcheck ARGS...` printed and its exit status, with
// `bytes` on its standard input (a pipe takes at most 64 KiB).
inline Ran mwcheck_reading(const std::string& bytes, Stdin how, std::vector<std::string> args) {
  int fd = -1;
  if (how == Stdin::file) {
    fd = ::open(test::write_temp("stdin_" + std::to_string(::getpid()), bytes).c_str(), O_RDONLY);
  } else if (int p[2]; ::pipe(p) == 0) {
    const bool whole = bytes.size() <= 65536 && ::write(p[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
    ::close(p[1]);
    fd = whole ? p[0] : (::close(p[0]), -1);
  }
  if (fd < 0) return {-1, "", "the test could not make standard input"};
  const int saved = ::dup(0);
  ::dup2(fd, 0);
  ::close(fd);
  Ran r = mwcheck(std::move(args));
  ::dup2(saved, 0);
  ::close(saved);
  return r;
}

}  // namespace mwc::cli
