// For tests that boot the Soft-RoCE VM: running the mwcheck program itself
// (MWCHECK_BIN) as a user would, and the corpus it ships.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace mwc::softroce::testing {

inline const std::string kCorpus = std::string(MWCHECK_SOURCE_DIR) + "/corpus/conformance/";

// Runs mwcheck with `args` (a shell word list); returns its exit status,
// with what it printed (standard output and error) in `out`.
inline int mwcheck(const std::string& args, std::string& out) {
  FILE* p = popen((std::string(MWCHECK_BIN) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace mwc::softroce::testing
