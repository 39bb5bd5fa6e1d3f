#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace mwc {
namespace {

namespace fs = std::filesystem;

// Returns the mode a plain open() would give a new file (0666 less umask).
// (umask can only be read by setting it; mwcheck's threads make no files.)
mode_t new_file_mode() {
  const mode_t m = umask(0);
  umask(m);
  return 0666 & ~m;
}

// Writes `text` into a new temporary file beside `path`. Returns its name,
// or an empty string with `why` set (and nothing left behind).
std::string write_temp(const std::string& path, std::string_view text, std::string& why) {
  const fs::path p(path);
  std::string tmpl = (p.parent_path() / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) return why = path + ": " + std::strerror(errno), "";
  bool ok = fchmod(fd, new_file_mode()) == 0;
  for (size_t at = 0; ok && at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) at += static_cast<size_t>(n);
  }
  ok = ok && fsync(fd) == 0;  // whole on disk before it takes the name
  const int e = errno;
  ok = close(fd) == 0 && ok;
  if (ok) return tmpl;
  why = path + ": " + std::strerror(e ? e : errno);
  unlink(tmpl.c_str());
  return "";
}

}  // namespace

bool write_files(const std::vector<OutputFile>& files, std::string& why) {
  std::vector<std::string> temps;
  const auto drop = [&] {
    for (const auto& t : temps) unlink(t.c_str());
  };
  for (const auto& f : files) {
    errno = 0;
    std::string t = write_temp(f.path, f.text, why);
    if (t.empty()) return drop(), false;
    temps.push_back(std::move(t));
  }
  // Renames within one folder do not fail for want of space.
  for (size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temps[i].c_str(), files[i].path.c_str()) != 0) {
      why = files[i].path + ": " + std::strerror(errno);
      temps.erase(temps.begin(), temps.begin() + static_cast<long>(i));
      return drop(), false;
    }
  }
  return true;
}

bool write_file(const std::string& path, std::string_view text, std::string& why) {
  return write_files({{path, std::string(text)}}, why);
}

}  // namespace mwc
