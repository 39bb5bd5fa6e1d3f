// mwcheck export --device: the exported programs run where the finding
// lives. The host compiles repro.c; the Soft-RoCE guest runs it and the
// pyverbs test, each in a child process, and prints how each ended.
#include "cli/export_run.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/guest.hpp"
#include "adapters/softroce/vm.hpp"
#include "exports/export.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {

// Runs argv with stdout and stderr on our stdout; kills it after `limit_s`.
// The program tells the console each op it starts (MWC_OP_LOG), as the
// session does (kOpMarker): written by the program itself before the verb,
// so a guest kernel that dies in the op is placed in it, with no race
// against this process. Returns how it ended, in words.
std::string run_child(const std::vector<std::string>& argv, int limit_s) {
  std::cout.flush();
  std::fflush(stdout);
  int pipefd[2];
  if (pipe(pipefd) != 0) return "could not start (pipe failed)";
  const pid_t pid = fork();
  if (pid < 0) return "could not start (fork failed)";
  if (pid == 0) {
    close(pipefd[0]);
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    std::vector<char*> a;
    for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    if (softroce::in_guest()) setenv("MWC_OP_LOG", "/dev/console", 1);
    execvp(a[0], a.data());
    _exit(127);
  }
  close(pipefd[1]);
  bool eof = false;
  // Echoes what the child printed within `wait_ms`; returns whether
  // there was any (false also at its end of output).
  const auto drain = [&](int wait_ms) {
    pollfd f{pipefd[0], POLLIN, 0};
    if (eof || poll(&f, 1, wait_ms) <= 0) return false;
    char buf[4096];
    const ssize_t n = read(pipefd[0], buf, sizeof buf);
    if (n <= 0) return !(eof = true);
    std::fwrite(buf, 1, static_cast<size_t>(n), stdout);
    std::fflush(stdout);
    return true;
  };
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  int st = 0;
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      kill(pid, SIGKILL);
      // A child the kernel holds in a verb dies only when the verb returns.
      for (int i = 0; i < 250 && waitpid(pid, &st, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      close(pipefd[0]);
      return "was killed after " + std::to_string(limit_s) + " s (TIMEOUT)";
    }
    if (!drain(20) && eof) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  while (drain(50)) {
  }
  close(pipefd[0]);
  if (WIFSIGNALED(st)) return fmt::format("died of signal {} ({})", WTERMSIG(st), strsignal(WTERMSIG(st)));
  return fmt::format("exit status {}", WEXITSTATUS(st));
}

}  // namespace

int run_exports_here(const std::vector<std::string>& programs, std::ostream& out) {
  for (const auto& p : programs) {
    softroce::mark_trace(static_cast<size_t>(&p - programs.data()), std::cerr);
    const bool py = p.ends_with(".py");
    // Named as given (the guest's corpus/NNNNN-NAME): the host prints its own name of it.
    out << fmt::format("{} {}: start\n", kExportRunMarker, p) << std::flush;
    if (py && access("/usr/bin/python3", X_OK) != 0) {
      out << fmt::format("{} {}: not run (no python3 here)\n", kExportRunMarker, p);
      continue;
    }
    const auto how = run_child(py ? std::vector<std::string>{"python3", p, "-v"} : std::vector<std::string>{p}, 300);
    out << fmt::format("{} {}: {}\n", kExportRunMarker, p, how) << std::flush;
  }
  softroce::mark_traces_done(std::cerr);
  return kExitOk;
}

int run_exports_in_softroce(const std::string& device, const DeviceConfig& dev, const std::vector<std::string>& dirs,
                            bool python, std::ostream& out, std::ostream& err) {
  const std::string cc = std::getenv("CC") ? std::getenv("CC") : "cc";
  std::vector<std::string> files;
  for (const std::string& dir : dirs) {
    const fs::path c = fs::path(dir) / exports::kCFile, bin = fs::path(dir) / exports::kProgramFile;
    const std::string cmd = fmt::format("{} -O1 -o '{}' '{}' -libverbs", cc, bin.string(), c.string());
    if (std::system(cmd.c_str()) != 0)
      return err << fmt::format("mwcheck export: error: cannot compile {} ({})\n", c.string(), cmd), kExitBadInput;
    files.push_back(bin.string());
    if (python) files.push_back((fs::path(dir) / exports::kPyFile).string());
  }
  // The image builder adds python3 and pyverbs to this guest only.
  if (python) setenv("MWCHECK_IMAGE_PYTHON", "1", 1);
  const int rc = run_args_in_softroce(device, dev, {"export", "--run-here"}, files, out, err);
  unsetenv("MWCHECK_IMAGE_PYTHON");
  return rc;
}

}  // namespace mwc::cli
