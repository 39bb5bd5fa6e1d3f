#include "cli/record_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/record_programs.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

std::string Ended::text() const {
  std::string first;
  if (WIFSIGNALED(status))
    first = fmt::format("died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else
    first = fmt::format("exited with status {}", WEXITSTATUS(status));
  if (!done && !timed_out) return "could not be waited for";
  if (!timed_out) return first;
  if (!done) return "was killed after the time limit (TIMEOUT)";
  return first + ", and what it started was killed after the time limit (TIMEOUT)";
}

bool Ended::ok() const { return done && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0; }

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kAliveEvery = std::chrono::seconds(10);  // well inside the guest's silence limit

// The keeper: a subreaper between mwcheck and the command, so that what the
// command leaves running (a server in the background) is still waited for
// and is killed with it. Sends the command's wait status up `status_fd`,
// then reaps until nothing is left. Never returns.
[[noreturn]] void keep(const RecordedCommand& c, const std::string& preload, int exec_fd, int status_fd) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t first = fork();
  if (first < 0) _exit(126);
  if (first == 0) {
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("MWCHECK_RECORD_LOG", c.log.c_str(), 1);
    if (!c.programs.empty()) {
      const char* path = std::getenv("PATH");
      setenv("PATH", path_with(c.programs, path ? path : "/usr/bin:/bin").c_str(), 1);
    }
    std::vector<std::string> argv = c.command;
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const int e = errno;
    if (write(exec_fd, &e, sizeof e) < 0) {}
    _exit(127);
  }
  close(exec_fd);
  for (;;) {
    int st = 0;
    const pid_t r = waitpid(-1, &st, 0);
    if (r == first && write(status_fd, &st, sizeof st) < 0) {}
    if (r < 0 && errno == ECHILD) _exit(0);
    if (r < 0 && errno != EINTR) _exit(125);
  }
}

// Returns the live (not yet zombie) processes whose parent is `parent`,
// from /proc; clears `whole` when the scan ended early.
std::vector<pid_t> children_of(pid_t parent, bool& whole) {
  std::vector<pid_t> kids;
  std::error_code ec;
  // Processes come and go while we read: an error ends the scan, never the program.
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& d = it->path();
    const std::string name = d.filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(d / "stat");
    std::string stat;
    std::getline(f, stat);
    // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses.
    const size_t close = stat.rfind(')');
    char state = 0;
    long ppid = 0;
    if (close == std::string::npos || std::sscanf(stat.c_str() + close + 1, " %c %ld", &state, &ppid) != 2)
      continue;
    if (ppid == parent && state != 'Z' && state != 'X') kids.push_back(static_cast<pid_t>(std::stol(name)));
  }
  if (ec) whole = false;
  return kids;
}

// Kills everything below the keeper, which is alive and reaps: what left
// the command's process group (setsid, a daemon's double fork) is still
// the keeper's, a subreaper's, descendant. Rounds until none is left, as
// one may fork while another dies.
void kill_below(pid_t keeper) {
  for (int round = 0; round < 200; ++round) {
    bool whole = true;  // a scan cut short cannot show that nothing is left
    std::vector<pid_t> all = children_of(keeper, whole);
    for (size_t i = 0; i < all.size(); ++i)
      for (const pid_t k : children_of(all[i], whole)) all.push_back(k);
    if (all.empty() && whole) return;
    for (const pid_t p : all) kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::optional<Ended> run_recorded(const RecordedCommand& c, std::ostream& err) {
  std::string preload = c.recorder;
  if (const char* p = std::getenv("LD_PRELOAD"); p && *p) preload += std::string(":") + p;
  std::cout.flush();
  // exec's failure comes back through a pipe that a successful exec
  // closes; the command's status through another.
  int ep[2], sp[2];
  if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(sp, O_CLOEXEC) != 0)
    return err << "mwcheck: pipe: " << strerror(errno) << "\n", std::nullopt;
  const pid_t keeper = fork();
  if (keeper < 0) return err << "mwcheck: fork: " << strerror(errno) << "\n", std::nullopt;
  if (keeper == 0) {
    setpgid(0, 0);
    close(ep[0]);
    close(sp[0]);
    keep(c, preload, ep[1], sp[1]);
  }
  setpgid(keeper, keeper);
  close(ep[1]);
  close(sp[1]);
  int exec_errno = 0;
  const bool exec_failed = read(ep[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(ep[0]);
  if (exec_failed) {
    waitpid(keeper, nullptr, 0);
    close(sp[0]);
    err << fmt::format("mwcheck: cannot run {}: {}\n", c.command[0], strerror(exec_errno));
    return std::nullopt;
  }
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::seconds(c.timeout_s);
  auto alive = start;
  Ended e;
  for (;;) {
    int st = 0;
    const pid_t r = waitpid(keeper, &st, WNOHANG);
    if (r == keeper) break;
    if (r < 0 && errno != EINTR) {
      close(sp[0]);
      return err << "mwcheck: waitpid: " << strerror(errno) << "\n", std::nullopt;
    }
    const auto now = Clock::now();
    if (now > deadline) {
      kill_below(keeper);
      kill(-keeper, SIGKILL);
      waitpid(keeper, &st, 0);
      e.timed_out = true;
      break;
    }
    // A guest that waits this long must not look hung to its host.
    if (now - alive > kAliveEvery) softroce::mark_alive(err), alive = now;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // In the guest the command's standard error is the console, where this
  // process writes next: a marker there ends a line the command left
  // without its newline (the host takes the two apart), so that what
  // mwcheck says next begins a line of its own.
  softroce::mark_alive(err);
  // Every write end is closed now (the keeper's is gone, the command's
  // closed at exec): the status is there or never will be.
  e.done = read(sp[0], &e.status, sizeof e.status) == sizeof e.status;
  close(sp[0]);
  // Killed at the deadline, the keeper may still have seen it die.
  if (e.timed_out && e.done && WIFSIGNALED(e.status) && WTERMSIG(e.status) == SIGKILL) e.done = false;
  return e;
}

}  // namespace mwc::cli
