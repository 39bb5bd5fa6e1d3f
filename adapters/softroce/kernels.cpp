#include "adapters/softroce/kernels.hpp"

#include <charconv>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

namespace mwc::softroce {
namespace {

// Returns the number the digits of s spell, or -1 past int's range.
int number(const std::string& s) {
  int v = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : -1;
}

constexpr size_t kMaxName = 256;

}  // namespace

std::vector<std::string> packaged_versions(std::istream& names) {
  const std::regex re(R"(^linux-image-([0-9]+)\.([0-9]+)[.-][0-9][0-9a-z.+~]*(-[0-9]+)?-amd64$)");
  std::set<std::pair<int, int>> seen;
  for (std::string s; std::getline(names, s);) {
    while (!s.empty() && s.back() == '\r') s.pop_back();
    // No package name is this long, and libstdc++'s matcher recurses per
    // character: a line of a megabyte would overflow the stack.
    if (s.size() > kMaxName) continue;
    std::smatch m;
    if (!std::regex_match(s, m, re)) continue;
    // A package name is text from outside: a version past int's range is
    // no kernel's, and is left out rather than thrown on.
    const int major = number(m[1]), minor = number(m[2]);
    if (major >= 0 && minor >= 0) seen.insert({major, minor});
  }
  std::vector<std::string> r;
  for (const auto& [a, b] : seen) r.push_back(std::to_string(a) + "." + std::to_string(b));
  return r;
}

namespace {

// Returns the versions of the linux-image packages apt knows (none when
// apt-cache cannot say).
std::vector<std::string> apt_versions() {
  FILE* p = popen("apt-cache pkgnames linux-image- 2>/dev/null", "r");
  if (!p) return {};
  std::string all;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) all.append(buf, n);
  pclose(p);
  std::istringstream in(all);
  return packaged_versions(in);
}

}  // namespace

std::vector<KernelChoice> kernel_choices() {
  std::vector<KernelChoice> r{{"softroce", "Debian's default kernel (linux-image-amd64)"}};
  for (const auto& v : apt_versions())
    r.push_back({"softroce:" + v, "the newest Debian kernel package of " + v});
  r.push_back({"softroce:PATH.deb", "the kernel of a linux-image .deb file"});
  return r;
}

}  // namespace mwc::softroce
