// Runs the command `mwcheck record` records: the recorder preloaded into
// it and into everything it starts, all of which must end by the deadline.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace mwc::cli {

// How the recorded command ended.
struct Ended {
  int status = 0;          // waitpid's, of the command's first process
  bool done = true;        // the first process ended (by itself) before the deadline
  bool timed_out = false;  // something it started was still running at the deadline: killed
  // Returns how it ended in words ("exited with status 0", "... (TIMEOUT)").
  std::string text() const;
  // Returns whether it ended by itself with status 0.
  bool ok() const;
};

struct RecordedCommand {
  std::vector<std::string> command;   // PROGRAM ARGS...
  std::vector<std::string> programs;  // their folders go first on PATH
  std::string recorder;               // the library to preload
  std::string log;                    // where the recorder writes
  int timeout_s = 600;
};

// Runs `c.command` with the recorder preloaded, in a process group of its
// own whose orphans it still waits for; kills all of it at the deadline,
// what left the group (setsid, a daemon) too.
// Returns how it ended, or nothing after printing why it could not start.
std::optional<Ended> run_recorded(const RecordedCommand& c, std::ostream& err);

}  // namespace mwc::cli
