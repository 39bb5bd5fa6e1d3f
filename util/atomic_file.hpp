// Outputs written atomically: each file goes to a temporary file in its
// own folder and is renamed over its path only when every file of the set
// is written whole, so a kill, a full disk or a size limit leaves the old
// files (or none), never a truncated one or a mismatched set.
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

// Writes every file's temporary copy, then renames them all. Returns false
// with `why` set ("PATH: REASON") when any cannot be written; then no path
// has changed and no temporary file is left.
bool write_files(const std::vector<OutputFile>& files, std::string& why);
// Returns write_files of the one file.
bool write_file(const std::string& path, std::string_view text, std::string& why);

}  // namespace mwc
