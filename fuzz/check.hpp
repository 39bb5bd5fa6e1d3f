// How a fuzz target reports a broken property: the message and the trace on
// stderr, then abort(), which libFuzzer and the replay driver both catch.
#pragma once
#include <cstdio>
#include <cstdlib>

#include "refmodel/text_codec.hpp"

namespace mwc::fuzz {

[[noreturn]] inline void fail(const char* what, const Trace* t = nullptr) {
  std::fprintf(stderr, "mwcheck fuzz target: %s\n", what);
  if (t) std::fprintf(stderr, "--- trace ---\n%s--- end ---\n", print_text(*t).c_str());
  std::abort();
}

inline void check(bool ok, const char* what, const Trace* t = nullptr) {
  if (!ok) fail(what, t);
}

}  // namespace mwc::fuzz
