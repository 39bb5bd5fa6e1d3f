#include "util/atomic_file.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
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

// Writes all of `text` to `fd`. Returns false with errno set on failure.
bool write_all(int fd, std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

// Writes `text` into `path` as it is (OutputTarget::in_place). Returns
// false with `why` set ("ORIGINAL: REASON").
bool write_in_place(const std::string& path, const std::string& original, std::string_view text,
                    std::string& why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return why = original + ": " + std::strerror(errno), false;
  const bool ok = write_all(fd, text);
  const int e = errno;
  if (::close(fd) == 0 && ok) return true;
  why = original + ": " + std::strerror(ok ? errno : e);
  return false;
}

// Writes `text` into a new temporary file beside `path`. Returns its name,
// or an empty string with `why` set ("ORIGINAL: REASON") and nothing left
// behind.
std::string write_temp(const std::string& path, const std::string& original, std::string_view text,
                       std::string& why) {
  const fs::path p(path);
  std::string tmpl = (p.parent_path() / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) return why = original + ": " + std::strerror(errno), "";
  bool ok = fchmod(fd, new_file_mode()) == 0 && write_all(fd, text);
  ok = ok && fsync(fd) == 0;  // whole on disk before it takes the name
  const int e = errno;
  ok = close(fd) == 0 && ok;
  if (ok) return tmpl;
  why = original + ": " + std::strerror(e ? e : errno);
  unlink(tmpl.c_str());
  return "";
}

// Returns the target a symbolic link at `link` names (relative to the
// link's folder), or "" when it cannot be read.
std::string link_target(const std::string& link) {
  std::string to(4096, '\0');
  const ssize_t n = ::readlink(link.c_str(), to.data(), to.size());
  if (n <= 0 || static_cast<size_t>(n) == to.size()) return "";
  to.resize(static_cast<size_t>(n));
  if (to[0] == '/') return to;
  const size_t slash = link.find_last_of('/');
  return slash == std::string::npos ? to : link.substr(0, slash + 1) + to;
}

// Returns whether `p` lies in a folder of procfs, whose links (/proc/self/fd/1
// behind /dev/stdout and /dev/fd/1) name a process's descriptors.
bool in_proc(const std::string& p) {
  const size_t slash = p.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : p.substr(0, slash);
  struct statfs fs {};
  return ::statfs(dir.c_str(), &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

}  // namespace

OutputTarget output_target(const std::string& path) {
  // The links are followed by hand: the last one's target is what a rename
  // must replace, and a descriptor's link in /proc is no file to replace
  // (realpath() would turn it into the file behind the descriptor).
  std::string p = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return {p, false};
    if (!S_ISLNK(st.st_mode) || in_proc(p)) return {p, true};
    std::string to = link_target(p);
    if (to.empty()) return {path, true};
    p = std::move(to);
  }
  return {path, true};  // a loop of links: open() says ELOOP
}

bool write_files(const std::vector<OutputFile>& files, std::string& why) {
  std::vector<OutputTarget> to;
  to.reserve(files.size());
  for (const auto& f : files) to.push_back(output_target(f.path));
  std::vector<std::string> temps(files.size());
  const auto drop = [&] {
    for (const auto& t : temps)
      if (!t.empty()) unlink(t.c_str());
  };
  for (size_t i = 0; i < files.size(); ++i) {
    if (to[i].in_place) continue;
    errno = 0;
    temps[i] = write_temp(to[i].path, files[i].path, files[i].text, why);
    if (temps[i].empty()) return drop(), false;
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (to[i].in_place && !write_in_place(to[i].path, files[i].path, files[i].text, why)) return drop(), false;
  // Renames within one folder do not fail for want of space.
  for (size_t i = 0; i < files.size(); ++i) {
    if (to[i].in_place) continue;
    if (std::rename(temps[i].c_str(), to[i].path.c_str()) != 0) {
      why = files[i].path + ": " + std::strerror(errno);
      return drop(), false;
    }
    temps[i].clear();
  }
  return true;
}

bool write_file(const std::string& path, std::string_view text, std::string& why) {
  return write_files({{path, std::string(text)}}, why);
}

}  // namespace mwc
