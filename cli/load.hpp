// Reading and writing trace files, with errors as FILE:LINE:COL: error: ...
#pragma once
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "compare/expectations.hpp"  // where()
#include "refmodel/trace.hpp"

namespace mwc::cli {

// Returns the trace in a .mwt or .mwb file (by extension, or the MWTB
// magic; `-`: standard input, by the magic), or nothing after printing the
// error to `err`.
std::optional<Trace> load_trace(const std::string& path, std::ostream& err);
// The same, its errors naming the file `shown` (the user's name for a copy
// of it).
std::optional<Trace> load_trace(const std::string& path, const std::string& shown, std::ostream& err);
// The same for the bytes `data` read from `path`.
std::optional<Trace> trace_of_bytes(const std::string& data, const std::string& path, const std::string& shown,
                                    std::ostream& err);
// Returns false after printing the error to `err` when `files` names
// standard input (-) more than once: it can be read only once.
bool stdin_at_most_once(const std::vector<std::string>& files, std::ostream& err);
// Returns a trace's file contents: .mwb (by the path's extension, or
// `binary`) or text.
std::string trace_bytes(const Trace& t, const std::string& path, bool binary = false);
// Writes a trace as .mwb (by extension, or `binary`) or text, atomically;
// `-`: to `out`. Returns false after printing the error to `err`.
bool save_trace(const Trace& t, const std::string& path, std::ostream& out, std::ostream& err,
                bool binary = false);
// Returns the .mwt and .mwb files of a folder, in name order (none when it
// cannot be read).
std::vector<std::filesystem::path> corpus_files(const std::string& dir);
// Reads every .mwt and .mwb trace of a folder, in name order, into `paths`
// and `traces`. Returns 0, kExitBadInput after printing errors (a trace
// that does not load is left out), or kExitBadInput with nothing read when
// the folder holds no traces.
int load_corpus(const std::string& dir, std::vector<std::string>& paths,
                std::vector<Trace>& traces, std::ostream& err);

}  // namespace mwc::cli
