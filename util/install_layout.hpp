// Where the files mwcheck ships with live: the conformance corpus, the
// Soft-RoCE image builder, the recorder, the fuzzing seeds. Found relative
// to the running program, never by a path the build machine had: an
// installed tree (any prefix, DESTDIR, moved) keeps them at the GNU
// directories relative to its bin/, a build tree beside the program.
#pragma once
#include <filesystem>
#include <string>

namespace mwc {

// Returns the folder of the running program ("" if /proc/self/exe is unreadable).
std::filesystem::path program_dir();

// Returns the shared-data folder: $MWCHECK_DATA_DIR when set, else the
// installed one (BINDIR/../share/mwcheck as configured) when it exists,
// else the build tree's (PROGRAM_DIR/share/mwcheck).
std::filesystem::path data_dir();

// Returns the data file or folder `rel` (e.g. "corpus/conformance") as a string.
std::string data_path(const std::string& rel);

// Returns the private library `name` (e.g. "libmwcheck_record.so"): the
// installed LIBDIR/mwcheck/NAME when it exists, else the one beside the program.
std::string private_lib(const std::string& name);

}  // namespace mwc
