#include "cli/record_programs.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "util/quote.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {
bool runnable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

std::string name_of(const std::string& path) { return fs::path(path).filename().string(); }

// Returns whether two paths name one file (/bin/true and /usr/bin/true often do).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || fs::equivalent(a, b, ec);
}
}  // namespace

std::string find_program(const std::string& name, const std::string& path_env) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos)
    return runnable(name) ? fs::absolute(name).lexically_normal().string() : "";
  std::istringstream dirs(path_env);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (runnable(p)) return fs::absolute(p).lexically_normal().string();
  }
  return "";
}

std::variant<std::vector<std::string>, std::string> resolve_programs(
    const std::vector<std::string>& given, const std::string& path_env) {
  std::vector<std::string> paths;
  std::map<std::string, std::string> by_name;  // the guest knows a program by its name only
  for (const auto& g : given) {
    const std::string p = find_program(g, path_env);
    if (p.empty())
      return fmt::format("--program {}: no such program{}", quote(g),
                         g.find('/') == std::string::npos ? " on PATH" : "");
    const auto [it, fresh] = by_name.emplace(name_of(p), p);
    if (!fresh && !same_file(it->second, p))
      return fmt::format("--program {}: {} is already the program {}", quote(g), quote(name_of(p)),
                         quote(it->second));
    if (fresh) paths.push_back(p);
  }
  return paths;
}

std::string path_with(const std::vector<std::string>& programs, const std::string& path_env) {
  std::string front;
  std::vector<std::string> seen;
  for (const auto& p : programs) {
    const std::string dir = fs::path(p).parent_path().string();
    if (std::find(seen.begin(), seen.end(), dir) != seen.end()) continue;
    seen.push_back(dir);
    front += dir + ":";
  }
  return front + path_env;
}

std::variant<GuestCommand, std::string> guest_command(const std::vector<std::string>& programs,
                                                      const std::vector<std::string>& command,
                                                      const std::string& path_env,
                                                      const std::set<std::string>& guest_has) {
  GuestCommand g{programs, command};
  if (command.empty()) return std::string("give the program after --");
  const std::string& first = command[0];
  const bool is_path = first.find('/') != std::string::npos;
  // A --program, named as given or by its name.
  for (const auto& p : programs)
    if (first == name_of(p) || (is_path && same_file(find_program(first, path_env), p))) {
      g.command[0] = name_of(p);
      return g;
    }
  if (!is_path && guest_has.contains(first)) return g;  // the guest's own (sh, sleep...)
  const std::string p = find_program(first, path_env);
  if (p.empty())
    return fmt::format("no program {} ({})", quote(first),
                       is_path ? "no executable file there" : "give its path, or name it with --program");
  for (const auto& q : programs)
    if (name_of(q) == name_of(p))
      return fmt::format("{} and --program {} have one name in the guest", quote(first), quote(q));
  g.programs.push_back(p);
  g.command[0] = name_of(p);
  return g;
}

std::set<std::string> busybox_applets() {
  std::set<std::string> names;
  FILE* p = popen("/bin/busybox --list 2>/dev/null", "r");
  if (!p) return names;
  for (std::array<char, 256> line{}; fgets(line.data(), line.size(), p);) {
    std::string s = line.data();
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty()) names.insert(s);
  }
  pclose(p);
  return names;
}

}  // namespace mwc::cli
