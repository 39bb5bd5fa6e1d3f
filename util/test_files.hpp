// Files for tests: a fresh folder, a file written, a file's bytes, a folder's names.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mwc::test {

// Returns an empty folder NAME under the temporary folder.
inline std::filesystem::path scratch(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / ("mwcheck_" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directory(p);
  return p;
}

// Writes `content` to the file NAME under the temporary folder. Returns its path.
inline std::string write_temp(const std::string& name, const std::string& content) {
  const auto p = std::filesystem::temp_directory_path() / ("mwcheck_" + name);
  std::ofstream(p, std::ios::binary) << content;
  return p.string();
}

// Returns the file's bytes (none when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Returns the names in `dir`, sorted: what a failed write must not leave.
inline std::vector<std::string> names(const std::filesystem::path& dir) {
  std::vector<std::string> n;
  for (const auto& e : std::filesystem::directory_iterator(dir)) n.push_back(e.path().filename().string());
  std::sort(n.begin(), n.end());
  return n;
}

}  // namespace mwc::test
