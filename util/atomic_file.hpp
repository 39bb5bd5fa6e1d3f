// Outputs written atomically: each file goes to a temporary file in its
// own folder and is renamed over its path only when every file of the set
// is written whole, so a kill, a full disk or a size limit leaves the old
// files (or none), never a truncated one or a mismatched set. A path that
// is no file to replace (a device, a pipe, a process's descriptor such as
// /dev/stdout) is written in place, and a symbolic link is followed, so
// that an output never replaces /dev/null or a link with a file.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mwc {

// One file of a set that belongs together (a report's JSON, JUnit, HTML).
struct OutputFile {
  std::string path;
  std::string text;
};

// Where an output for `path` goes: `path` after its symbolic links, to be
// replaced by a renamed temporary file (in_place false: a regular file or
// none yet), else `path` itself, opened and written as it is (a device, a
// pipe, a link into /proc such as /dev/stdout, a folder for open() to
// refuse).
struct OutputTarget {
  std::string path;
  bool in_place = false;
};
// Returns the target of an output written to `path`.
OutputTarget output_target(const std::string& path);

// Writes every file's temporary copy, then the outputs written in place,
// then renames the copies. Returns false with `why` set ("PATH: REASON")
// when any cannot be written; then no file has been replaced and no
// temporary file is left.
bool write_files(const std::vector<OutputFile>& files, std::string& why);
// Returns write_files of the one file.
bool write_file(const std::string& path, std::string_view text, std::string& why);

}  // namespace mwc
