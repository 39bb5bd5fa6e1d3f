// The conformance corpus (corpus/conformance/*.mwt), built into the fuzz
// library: which rule branches exist is what it reaches (rule_coverage.hpp),
// and a libFuzzer target has no source tree to read it from.
#pragma once
#include <span>
#include <string_view>

namespace mwc::fuzz {

struct EmbeddedTrace {
  std::string_view name;  // the file's name
  std::string_view text;
};
// Returns the corpus's traces, in name order.
std::span<const EmbeddedTrace> conformance_texts();

}  // namespace mwc::fuzz
