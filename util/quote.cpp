#include "util/quote.hpp"

namespace mwc {

std::string escaped(std::string_view s, size_t max) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string o;
  const size_t n = s.size() > max ? max : s.size();
  o.reserve(n + 8);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\r': o += "\\r"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\\': o += "\\\\"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          o += "\\x";
          o += kHex[c >> 4];
          o += kHex[c & 15];
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  if (s.size() > max) o += "...";
  return o;
}

std::string quote(std::string_view s, size_t max) { return "'" + escaped(s, max) + "'"; }

}  // namespace mwc
