#include "util/install_layout.hpp"

#include <cstdlib>
#include <system_error>

// Relative paths from the installed bin/ folder, set by CMake from
// GNUInstallDirs; they name no folder of the build machine.
#ifndef MWCHECK_REL_DATADIR
#define MWCHECK_REL_DATADIR "../share/mwcheck"
#endif
#ifndef MWCHECK_REL_PKGLIBDIR
#define MWCHECK_REL_PKGLIBDIR "../lib/mwcheck"
#endif

namespace mwc {
namespace fs = std::filesystem;

fs::path program_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

fs::path data_dir() {
  if (const char* d = std::getenv("MWCHECK_DATA_DIR"); d && *d) return d;
  const fs::path here = program_dir();
  std::error_code ec;
  const fs::path installed = (here / MWCHECK_REL_DATADIR).lexically_normal();
  if (fs::is_directory(installed, ec)) return installed;
  return here / "share" / "mwcheck";
}

std::string data_path(const std::string& rel) { return (data_dir() / rel).string(); }

std::string private_lib(const std::string& name) {
  const fs::path here = program_dir();
  std::error_code ec;
  const fs::path installed = (here / MWCHECK_REL_PKGLIBDIR / name).lexically_normal();
  if (fs::exists(installed, ec)) return installed.string();
  return (here / name).string();
}

}  // namespace mwc
