// Helpers shared by the refmodel tests.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "refmodel/text_codec.hpp"

namespace mwc::testing {

// Returns the trace in `text`, failing the test on a parse error.
inline Trace parse_or_fail(std::string_view text) {
  auto r = parse_text(text);
  if (auto* e = std::get_if<ParseError>(&r)) {
    ADD_FAILURE() << e->line << ":" << e->col << ": " << e->message;
    return {};
  }
  return std::get<Trace>(std::move(r));
}

// Returns the paths of the conformance traces (MWCHECK_SOURCE_DIR is set by ctest).
inline std::vector<std::filesystem::path> corpus_files() {
  std::vector<std::filesystem::path> files;
  const char* src = std::getenv("MWCHECK_SOURCE_DIR");
  const std::filesystem::path dir = std::filesystem::path(src ? src : ".") / "corpus" / "conformance";
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".mwt") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace mwc::testing
