// fuzz_text: the text parser never crashes, names a line and column for
// every error, and what parses prints back to a text that parses to the
// same trace and prints the same again.
#include <string_view>

#include "fuzz/check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mwc;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = parse_text(text);
  if (const auto* e = std::get_if<ParseError>(&r)) {
    fuzz::check(e->line >= 1 && e->col >= 1 && !e->message.empty(), "a parse error without a position");
    return 0;
  }
  const Trace& t = std::get<Trace>(r);
  const std::string printed = print_text(t);
  auto again = parse_text(printed);
  if (const auto* e = std::get_if<ParseError>(&again)) {
    std::fprintf(stderr, "%u:%u: %s\n", e->line, e->col, e->message.c_str());
    fuzz::fail("the printed form of a parsed trace does not parse", &t);
  }
  fuzz::check(std::get<Trace>(again) == t, "print then parse changes the trace", &t);
  fuzz::check(print_text(std::get<Trace>(again)) == printed, "printing a trace is not stable", &t);
  return 0;
}
