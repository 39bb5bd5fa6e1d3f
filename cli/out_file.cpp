#include "cli/out_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/atomic_file.hpp"

namespace mwc::cli {

OutFile::OutFile(std::string path) : path_(std::move(path)) {
  // A device or a pipe (/dev/null, /dev/stdout) is written as it is: it
  // holds no file to keep, and renaming onto it would replace it. A link
  // is followed: the file it names is replaced, the link stays.
  const OutputTarget to = output_target(path_);
  if (to.in_place) {
    f_ = std::fopen(to.path.c_str(), "wb");
    if (!f_) fail(std::string("cannot write: ") + std::strerror(errno));
    return;
  }
  target_ = to.path;
  // A hidden name of its own in the target's folder; created, never reused
  // (O_EXCL), with the permissions a new file gets (0666 less the umask).
  const size_t slash = target_.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : target_.substr(0, slash + 1);
  const std::string base = target_.substr(dir.size());
  for (int n = 0; n < 100; ++n) {
    temp_ = dir + "." + base + "." + std::to_string(::getpid()) + "." + std::to_string(n) + ".tmp";
    const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) break;
    f_ = ::fdopen(fd, "wb");
    if (!f_) ::close(fd), ::unlink(temp_.c_str());
    break;
  }
  if (!f_) {
    fail(std::string("cannot write: ") + std::strerror(errno));
    temp_.clear();
  }
}

OutFile::~OutFile() {
  if (f_) std::fclose(f_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

bool OutFile::fail(const std::string& what) {
  error_ = path_ + ":1:1: error: " + what;
  return false;
}

bool OutFile::commit() {
  if (!ok()) return false;
  const bool written = std::fflush(f_) == 0 && !std::ferror(f_);
  const int err = errno;
  const bool closed = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!written || !closed) return fail(std::string("cannot write: ") + std::strerror(written ? errno : err));
  if (!temp_.empty() && ::rename(temp_.c_str(), target_.c_str()) != 0) return fail(std::string("cannot rename the new file onto it: ") + std::strerror(errno));
  temp_.clear();
  return true;
}

}  // namespace mwc::cli
