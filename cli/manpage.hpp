// mwcheck(1), written from the program's own tables: each verb and its
// options from the CLI11 app, profiles and knobs from knobs.def, the trace
// language's ops and fields from ops.def, flag and state names from
// vocab.def. The prose around them (description, exit status, examples)
// is a roff template, packaging/mwcheck.1.in.
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace mwc::cli {

// Returns the template with @VERSION@, @VERBS@, @PROFILES@, @KNOBS@,
// @OPS@ and @VOCABULARY@ replaced by roff text.
std::string man_page(const CLI::App& app, const std::string& templ, const std::string& version);

// Runs `__man TEMPLATE` (args[0] is "__man"): prints the page. Returns the
// exit status (2 when the template cannot be read).
int print_man_page(const CLI::App& app, const std::vector<std::string>& args,
                   const std::string& version, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
