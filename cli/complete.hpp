// Shell completion from the program's own tables: the verbs and options of
// the CLI11 app, the profiles, knobs and alternatives of knobs.def, the
// mutants, the faults --inject knows, the devices one can name. The bash
// script (packaging/mwcheck.bash) asks `mwcheck __complete CWORD WORDS...`.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace mwc::cli {

struct Completion {
  std::vector<std::string> words;  // candidates that start with the word being completed
  bool files = false;              // the shell should offer file names too
};

// Returns what completes words[cword] of a command line (words[0] is the
// program; cword may be words.size(), a new empty word).
Completion complete(const CLI::App& app, const std::vector<std::string>& words, size_t cword);

// Runs `__complete CWORD WORDS...` (args[0] is "__complete"): prints one
// candidate per line, then ":files" when file names fit. Returns the exit
// status (2 when CWORD is no index).
int print_completion(const CLI::App& app, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err);

}  // namespace mwc::cli
