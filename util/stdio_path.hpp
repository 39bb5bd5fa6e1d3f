// The path that names standard input where an input file is asked for, and
// standard output where an output file is (gen -o -, convert IN -, run -,
// replay -); never a folder's name. `./-` names a file or folder called -.
#pragma once
#include <string_view>

namespace mwc {

inline constexpr std::string_view kStdioPath = "-";

}  // namespace mwc
