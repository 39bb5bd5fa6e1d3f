#include "adapters/softroce/kernels.hpp"

#include <cstdio>
#include <regex>
#include <set>


namespace mwc::softroce {
namespace {

// Returns MAJOR.MINOR of each linux-image-*-amd64 package apt knows, oldest
// first, as build-image picks them (the newest package of that version).
std::vector<std::string> packaged_versions() {
  std::vector<std::string> r;
  FILE* p = popen("apt-cache pkgnames linux-image- 2>/dev/null", "r");
  if (!p) return r;
  const std::regex re(R"(^linux-image-([0-9]+)\.([0-9]+)[.-][0-9][0-9a-z.+~]*(-[0-9]+)?-amd64$)");
  std::set<std::pair<int, int>> seen;
  char line[256];
  while (std::fgets(line, sizeof line, p)) {
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    std::smatch m;
    if (std::regex_match(s, m, re)) seen.insert({std::stoi(m[1]), std::stoi(m[2])});
  }
  pclose(p);
  for (const auto& [a, b] : seen) r.push_back(std::to_string(a) + "." + std::to_string(b));
  return r;
}

}  // namespace

std::vector<KernelChoice> kernel_choices() {
  std::vector<KernelChoice> r{{"softroce", "Debian's default kernel (linux-image-amd64)"}};
  for (const auto& v : packaged_versions())
    r.push_back({"softroce:" + v, "the newest Debian kernel package of " + v});
  r.push_back({"softroce:PATH.deb", "the kernel of a linux-image .deb file"});
  return r;
}

}  // namespace mwc::softroce
