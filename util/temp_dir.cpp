#include "util/temp_dir.hpp"

#include <cstdlib>
#include <system_error>

namespace mwc {

std::filesystem::path temp_dir() {
  std::error_code ec;
  if (const char* t = std::getenv("TMPDIR"); t && *t && std::filesystem::is_directory(t, ec)) return t;
  return "/tmp";
}

}  // namespace mwc
