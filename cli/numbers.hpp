// Numeric options: each takes a number of its type within a range, which
// --help shows; NaN, a negative number for an unsigned option and a
// number its type cannot hold are refused (exit 2), never wrapped.
#pragma once
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "util/quote.hpp"

namespace mwc::cli {

// Returns a validator of numbers of type T from lo to hi, both included.
template <typename T>
CLI::Validator in_range(T lo, T hi) {
  const std::string range = fmt::format("[{} - {}]", lo, hi);
  return CLI::Validator(
      [lo, hi, range](std::string& s) -> std::string {
        T v{};
        bool ok = false;
        if constexpr (std::is_floating_point_v<T>) {
          char* end = nullptr;
          errno = 0;
          const double d = std::strtod(s.c_str(), &end);
          ok = !s.empty() && end == s.c_str() + s.size() && errno == 0 && std::isfinite(d);
          v = static_cast<T>(d);
        } else {
          const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
          ok = !s.empty() && ec == std::errc() && end == s.data() + s.size();
        }
        if (ok && v >= lo && v <= hi) return {};
        return quote(s) + " is not a number in " + range;
      },
      range);
}

}  // namespace mwc::cli
