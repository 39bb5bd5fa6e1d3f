// mwcheck record: runs an unmodified libibverbs program with the recorder
// preloaded (record/interpose.cpp), then turns the log it wrote into a
// trace whose expected outcomes are what the program saw. With --device
// softroce it does so inside the Soft-RoCE VM and brings the trace back.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "record/event_log.hpp"
#include "record/to_trace.hpp"
#include "refmodel/text_codec.hpp"
#include "util/atomic_file.hpp"
#include "util/install_layout.hpp"
#include "util/read_input.hpp"
#include "util/temp_dir.hpp"
#include "util/quote.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLibName = "libmwcheck_record.so";

// Returns the recorder library: --preload, else $MWCHECK_RECORD_LIB, else
// the one installed with this program (or beside it in a build tree).
std::string recorder_path(const RecordOptions& o) {
  if (!o.preload.empty()) return fs::absolute(o.preload).string();
  if (const char* p = std::getenv("MWCHECK_RECORD_LIB")) return p;
  return private_lib(kLibName);
}

// How the recorded program ended.
struct Ended {
  int status = 0;      // waitpid's
  bool timed_out = false;
  std::string text() const {
    if (timed_out) return "was killed after the time limit (TIMEOUT)";
    if (WIFSIGNALED(status)) return fmt::format("died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
    return fmt::format("exited with status {}", WEXITSTATUS(status));
  }
  bool ok() const { return !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// Runs the program with the recorder preloaded, logging to `log`; kills its
// process group at the deadline. Returns how it ended, or nothing after
// printing why it could not start.
std::optional<Ended> run_recorded(const RecordOptions& o, const std::string& lib,
                                  const std::string& log, std::ostream& err) {
  std::vector<std::string> argv = o.command;
  std::string preload = lib;
  if (const char* p = std::getenv("LD_PRELOAD"); p && *p) preload += std::string(":") + p;
  std::cout.flush();
  // exec's failure comes back through a pipe that a successful exec closes.
  int ep[2];
  if (pipe2(ep, O_CLOEXEC) != 0) return err << "mwcheck: pipe: " << strerror(errno) << "\n", std::nullopt;
  const pid_t pid = fork();
  if (pid < 0) return err << "mwcheck: fork: " << strerror(errno) << "\n", std::nullopt;
  if (pid == 0) {
    close(ep[0]);
    setpgid(0, 0);
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("MWCHECK_RECORD_LOG", log.c_str(), 1);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const int e = errno;
    if (write(ep[1], &e, sizeof e) < 0) {}
    _exit(127);
  }
  close(ep[1]);
  int exec_errno = 0;
  const bool exec_failed = read(ep[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(ep[0]);
  if (exec_failed) {
    waitpid(pid, nullptr, 0);
    err << fmt::format("mwcheck: cannot run {}: {}\n", argv[0], strerror(exec_errno));
    return std::nullopt;
  }
  setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  Ended e;
  for (;;) {
    const pid_t r = waitpid(pid, &e.status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return err << "mwcheck: waitpid: " << strerror(errno) << "\n", std::nullopt;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &e.status, 0);
      e.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return e;
}

std::optional<std::string> read_file(const std::string& path, std::ostream& err) {
  std::string bytes;
  if (InputError e; !read_input(path, kLogLimits, bytes, e))
    return err << fmt::format("{}:{}:{}: error: {}\n", path, e.line, e.col, e.message), std::nullopt;
  return bytes;
}

// Turns a log into the trace and writes it. Returns the exit status.
int convert(const std::string& log_path, const std::string& log_text, const RecordOptions& o,
            const std::string& source, std::ostream& out, std::ostream& err) {
  auto events = record::parse_log(log_text);
  if (auto* e = std::get_if<ParseError>(&events)) {
    err << fmt::format("{}:{}:{}: error: {}\n", log_path, e->line, e->col, e->message);
    return kExitBadInput;
  }
  const record::Recording r = record::to_trace(std::get<0>(events), source);
  // Refused here rather than written as a trace `run` would refuse.
  if (const std::string why = beyond_limits(r.trace); !why.empty())
    return err << fmt::format("{}:1:1: error: the recording does not fit a trace: {}\n", log_path, why),
           kExitBadInput;
  if (!save_trace(r.trace, o.out, err)) return kExitBadInput;
  out << fmt::format("recorded {} ops ({} with the outcome the program saw) into {}\n",
                     r.trace.ops.size(), r.expected, o.out);
  for (const auto& s : r.skipped) out << "  " << s << "\n";
  if (softroce::in_guest()) send_file(o.out, print_text(r.trace), out);
  return kExitOk;
}

// The recording inside the Soft-RoCE VM: the program and the recorder go
// in as files, the trace (and the log, when asked for) come back.
int record_in_softroce(const RecordOptions& o, std::ostream& out, std::ostream& err) {
  const std::string lib = recorder_path(o);
  if (!fs::exists(lib)) return err << fmt::format("mwcheck: no recorder at {}\n", lib), kExitBadInput;
  std::string program = o.command[0];
  if (program.find('/') == std::string::npos) {
    // A program found on PATH goes in by its path.
    std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
    for (std::string dir; std::getline(path, dir, ':');)
      if (access((fs::path(dir) / program).c_str(), X_OK) == 0) {
        program = (fs::path(dir) / program).string();
        break;
      }
  }
  if (!fs::exists(program)) return err << fmt::format("mwcheck: no program {} (give its path)\n", program), kExitBadInput;
  const fs::path dest = fs::absolute(o.out).parent_path();
  const std::string name = fs::path(o.out).filename().string();
  // The guest writes text; the host converts to .mwb when asked.
  const bool binary = name.ends_with(".mwb");
  const std::string guest_name = binary ? name.substr(0, name.size() - 4) + ".mwt" : name;
  std::vector<std::string> args = {"record", "-o", guest_name, "--preload", "corpus/00001-" + std::string(kLibName),
                                   "--timeout", std::to_string(o.timeout_s)};
  if (!o.log.empty()) args.insert(args.end(), {"--log", fs::path(o.log).filename().string()});
  args.push_back("--");
  args.push_back("corpus/00000-" + fs::path(program).filename().string());
  args.insert(args.end(), o.command.begin() + 1, o.command.end());
  std::error_code ec;
  if (!fs::is_directory(dest, ec))
    return err << fmt::format("{}:1:1: error: cannot write: no folder {}\n", o.out, dest.string()), kExitBadInput;
  const int rc = run_args_in_softroce(o.device, o.dev, args, {program, lib}, out, err, false, dest.string());
  if (rc != kExitOk && rc != kExitFail) return rc;
  // The trace names the program as the guest ran it: give the host's name.
  const fs::path got = dest / guest_name;
  auto text = read_file(got.string(), err);
  if (!text) return kExitBadInput;
  const std::string guest_program = "corpus/00000-" + fs::path(program).filename().string();
  if (const size_t at = text->find(guest_program); at != std::string::npos)
    text->replace(at, guest_program.size(), program);
  if (std::string why; !write_file(got.string(), *text, why))
    return err << fmt::format("{}:1:1: error: cannot write {}\n", got.string(), why), kExitBadInput;
  if (binary) {
    const auto t = load_trace(got.string(), err);
    if (!t || !save_trace(*t, o.out, err)) return kExitBadInput;
    fs::remove(got, ec);
  }
  return rc;
}

}  // namespace

int cmd_record(const RecordOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.from_log.empty()) {
    const auto text = read_file(o.from_log, err);
    if (!text) return kExitBadInput;
    return convert(o.from_log, *text, o, o.from_log, out, err);
  }
  if (o.command.empty()) return err << "mwcheck record: give the program after --\n", kExitBadInput;
  if (!o.device.empty() && !is_softroce("device:" + o.device))
    return err << fmt::format("mwcheck record: error: --device {}: record runs a program in the Soft-RoCE VM "
                              "(softroce[:VERSION]) or, without --device, on this machine's NIC\n",
                              quote(o.device)),
           kExitBadInput;
  if (!o.device.empty()) return record_in_softroce(o, out, err);
  const std::string lib = recorder_path(o);
  if (!fs::exists(lib)) return err << fmt::format("mwcheck: no recorder at {}\n", lib), kExitBadInput;
  // The log: where --log says, else a file of our own removed afterwards.
  std::string log = o.log;
  if (log.empty()) {
    std::string tmpl = (temp_dir() / "mwcheck-record-XXXXXX").string();
    const int fd = mkstemp(tmpl.data());
    if (fd < 0) return err << "mwcheck: cannot create a log file\n", kExitBadInput;
    close(fd);
    log = tmpl;
  }
  std::ofstream(log, std::ios::trunc).flush();
  const auto ended = run_recorded(o, lib, log, err);
  const auto text = ended ? read_file(log, err) : std::nullopt;
  if (o.log.empty()) fs::remove(log);
  if (!ended || !text) return kExitBadInput;
  std::string source;
  for (const auto& a : o.command) source += (source.empty() ? "" : " ") + a;
  if (text->empty()) {
    // The program made no verb call the recorder saw (or was no libibverbs program).
    err << fmt::format("mwcheck: {} {}, and called no verb the recorder saw\n", source, ended->text());
    return kExitFail;
  }
  const int rc = convert(o.log.empty() ? "the recording" : o.log, *text, o, source, out, err);
  if (rc != kExitOk) return rc;
  if (!o.log.empty() && softroce::in_guest()) send_file(o.log, *text, out);
  out << fmt::format("the program {}\n", ended->text());
  return ended->ok() ? kExitOk : kExitFail;
}

}  // namespace mwc::cli
