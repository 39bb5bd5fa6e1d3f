// An output file written whole or not at all: the bytes go to a new file
// beside the target (same folder, so the rename cannot cross file
// systems), which commit() renames over it. Until then the target keeps
// what it held, and a writer that fails or is killed leaves no partial
// file under its name. A device or a pipe is written in place and a link
// followed (util/atomic_file.hpp's output_target()).
#pragma once
#include <cstdio>
#include <string>

namespace mwc::cli {

class OutFile {
 public:
  // Creates the temporary file beside `path`. On failure ok() is false and
  // error() says why, as PATH:1:1: error: ...
  explicit OutFile(std::string path);
  // Removes the temporary file unless it was committed.
  ~OutFile();
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Returns the stream to write to (null when !ok()).
  std::FILE* file() const { return f_; }
  // Flushes and closes the file, then renames it to the target. Returns
  // false after a write, close or rename error (error() says which).
  bool commit();

 private:
  bool fail(const std::string& what);
  std::string path_, target_, temp_, error_;  // target_: path_ after its links
  std::FILE* f_ = nullptr;
};

}  // namespace mwc::cli
