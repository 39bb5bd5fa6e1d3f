// The folder a command writes its outputs into (--report, --out,
// --witness-dir, export -o).
#pragma once
#include <string>

namespace mwc {

// Makes `dir` if it is not a folder yet, creating only its last component:
// its parent must exist, so a mistyped path makes no tree of folders.
// Returns false with `why` set (what is wrong, for a message naming `dir`)
// when `dir` is not a folder and cannot be made one, or is `-`.
bool make_output_dir(const std::string& dir, std::string& why);

}  // namespace mwc
