#include "cli/campaign_inputs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <system_error>
#include <tuple>

#include "cli/guest.hpp"
#include "findings/finding.hpp"
#include "util/read_input.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

std::string input_kind(std::string_view name) {
  // rNN- (the round), finding-, N- (the guest's count), KIND.mwt
  if (name.size() > 4 && name[0] == 'r' && std::isdigit(static_cast<unsigned char>(name[1]))) {
    if (const size_t dash = name.find('-'); dash != std::string_view::npos) name.remove_prefix(dash + 1);
  }
  if (name.ends_with(".mwt")) name.remove_suffix(4);
  if (name.starts_with("finding-")) name.remove_prefix(8);
  size_t digits = 0;
  while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
  if (digits > 0 && digits < name.size() && name[digits] == '-') name.remove_prefix(digits + 1);
  return std::string(name);
}

std::string kernel_account(std::string_view text) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    if (!line.starts_with("#")) break;  // the account heads the file
    if (line.starts_with(kKernelAccountLine)) out.append(line.substr(kKernelAccountLine.size())).append("\n");
  }
  return out;
}

JudgeChoice choose_inputs(const std::string& dir, size_t per_kind) {
  // kind -> (size, name, path), smallest first
  std::map<std::string, std::vector<std::tuple<uintmax_t, std::string, std::string>>> by_kind;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".mwt") continue;
    const std::string name = it->path().filename().string();
    std::string kind = input_kind(name);
    size_t keep = per_kind;
    if (kind == input_kind(kGuestKernelFinding)) {
      std::string text;
      InputError e;
      read_input(it->path().string(), kTraceLimits, text, e);  // unreadable: no account
      const std::string sig = findings::crash_signature(kernel_account(text));
      kind += ": " + (sig.empty() ? std::string("silent") : sig);
      keep = 1;
    }
    auto& v = by_kind[kind];
    v.emplace_back(it->file_size(ec), name, it->path().string());
    std::sort(v.begin(), v.end());
    if (v.size() > keep) v.pop_back();
  }
  JudgeChoice c;
  c.kinds = by_kind.size();
  std::vector<std::pair<std::string, std::string>> chosen;  // name, path
  for (auto& [kind, v] : by_kind)
    for (auto& [size, name, path] : v) chosen.emplace_back(name, path);
  std::sort(chosen.begin(), chosen.end());
  for (auto& [name, path] : chosen) c.paths.push_back(path);
  return c;
}

}  // namespace mwc::cli
