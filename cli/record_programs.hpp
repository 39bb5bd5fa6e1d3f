// Which programs a recording runs, and the command line as the Soft-RoCE
// guest runs it: `mwcheck record --program PATH... -- COMMAND` puts each
// program's folder first on PATH here, and in the guest puts the program
// (with its shared libraries) into /usr/local/bin.
#pragma once
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace mwc::cli {

// Returns the absolute path of the program `name` names: a path (it holds
// a '/') as it is, a bare name as found in the folders of `path_env`; ""
// when there is no executable file there.
std::string find_program(const std::string& name, const std::string& path_env);

// Returns the absolute paths of the --program values, or why they cannot
// be run (no such program, two programs of one name).
std::variant<std::vector<std::string>, std::string> resolve_programs(
    const std::vector<std::string>& given, const std::string& path_env);

// Returns `path_env` with the folders of `programs` in front, each once.
std::string path_with(const std::vector<std::string>& programs, const std::string& path_env);

// What the guest runs: the programs that go in (the --program ones, and
// the command's first word when it names a program of this machine that
// the guest lacks) and the command as the guest's PATH finds it.
struct GuestCommand {
  std::vector<std::string> programs;  // host paths
  std::vector<std::string> command;
};

// Returns the guest's command for `command` given the resolved `programs`
// and the names the guest has of its own (`guest_has`: busybox's applets),
// or why it cannot run there.
std::variant<GuestCommand, std::string> guest_command(const std::vector<std::string>& programs,
                                                      const std::vector<std::string>& command,
                                                      const std::string& path_env,
                                                      const std::set<std::string>& guest_has);

// Returns the applets of this machine's /bin/busybox, which the guest runs
// as its sh, sleep and the rest (empty when there is none).
std::set<std::string> busybox_applets();

}  // namespace mwc::cli
