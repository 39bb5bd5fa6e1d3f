// The folder temporary files go to.
#pragma once
#include <filesystem>

namespace mwc {

// Returns $TMPDIR when it names a folder, else /tmp (as mktemp(1) does), so
// a stale or mistyped TMPDIR never aborts a run.
std::filesystem::path temp_dir();

}  // namespace mwc
