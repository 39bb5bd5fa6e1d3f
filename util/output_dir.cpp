#include "util/output_dir.hpp"

#include <filesystem>

#include "util/stdio_path.hpp"

namespace mwc {

bool make_output_dir(const std::string& dir, std::string& why) {
  namespace fs = std::filesystem;
  // `-` is standard output elsewhere (gen -o -, convert): never a folder's name here.
  if (dir == kStdioPath) return why = "- is standard output, which holds no folder (./- names a folder called -)", false;
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return true;
  if (fs::exists(dir, ec)) return why = "not a folder", false;
  // "out/" names "out": its parent is the parent of the last component.
  const fs::path p = fs::path(dir).lexically_normal();
  const fs::path parent = (p.has_filename() ? p : p.parent_path()).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec))
    return why = "its parent folder " + parent.string() + " does not exist (create it first)", false;
  if (!fs::create_directory(dir, ec) && ec) return why = "cannot create the folder: " + ec.message(), false;
  return true;
}

}  // namespace mwc
