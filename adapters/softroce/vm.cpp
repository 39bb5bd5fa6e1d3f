#include "adapters/softroce/vm.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

#include "adapters/kernel/console_keeper.hpp"
#include "adapters/kernel/oops.hpp"
#include "util/install_layout.hpp"
#include "util/read_blocks.hpp"
#include "util/temp_dir.hpp"

extern char** environ;

namespace mwc::softroce {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kKvmProbeS = 30;  // a KVM guest not up by then falls back to TCG
constexpr size_t kPollBytes = size_t{1} << 20;  // the most of the console read per poll
// The console's bytes read are given back to the file system in steps of
// this many: its file grows with every line the guest prints (a marker
// per op), its blocks on disk do not.
constexpr uint64_t kFreeStep = uint64_t{4} << 20;
constexpr int kBootTries = 3;      // a guest that never came up is booted again this often
double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Returns what file p holds from offset on, at most max bytes, and moves
// offset past it.
std::string read_from(const fs::path& p, size_t& offset, size_t max = SIZE_MAX) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  in.seekg(static_cast<std::streamoff>(offset));
  std::string s;
  if (max == SIZE_MAX) {
    s.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else {
    s.resize(max);
    in.read(s.data(), static_cast<std::streamsize>(max));
    s.resize(static_cast<size_t>(in.gcount()));
  }
  offset += s.size();
  return s;
}

// Runs a program; returns its exit status (-1 if it could not start).
int spawn_wait(const std::vector<std::string>& argv, pid_t* pid_out = nullptr) {
  std::vector<char*> a;
  for (const auto& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, a[0], nullptr, nullptr, a.data(), environ) != 0) return -1;
  if (pid_out) {
    *pid_out = pid;
    return 0;
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

struct Image {
  std::string kernel, system, program;
  // Parts after those: python3 and pyverbs (when MWCHECK_IMAGE_PYTHON asks
  // for them), the programs of VmOptions::programs.
  std::vector<std::string> more;
};

std::string shell_quoted(const std::string& s) {
  std::string q = "'";
  for (const char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Returns the command that builds (or finds in the cache) what `o` boots.
std::string image_command(const VmOptions& o) {
  const std::string script =
      o.image_script.empty() ? data_path("softroce/build-image") : o.image_script;
  // This very process's binary, even if a rebuild has replaced the file.
  const std::string self = "/proc/" + std::to_string(getpid()) + "/exe";
  std::string cmd = shell_quoted(script) + " " + shell_quoted(o.kernel) + " " + shell_quoted(self);
  for (const auto& p : o.programs) cmd += " " + shell_quoted(p);
  return cmd;
}

// Returns the kernel and initramfs parts, built or found in the cache.
bool build_image(const VmOptions& o, Image& img, std::string& err) {
  const std::string cmd = image_command(o);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return err = "cannot run " + cmd, false;
  std::string out;
  for (std::array<char, 512> buf{}; fgets(buf.data(), buf.size(), p);) out += buf.data();
  const int rc = pclose(p);
  std::istringstream lines(out);
  std::getline(lines, img.kernel);
  std::getline(lines, img.system);
  std::getline(lines, img.program);
  for (std::string part; std::getline(lines, part);)
    if (!part.empty()) img.more.push_back(part);
  if (rc != 0 || img.program.empty()) return err = "building the Soft-RoCE image failed", false;
  return true;
}

enum class End { finished, panicked, hung, failed };

struct Boot {
  End end = End::failed;
  std::string output, console, release;
  int exit_code = -1;
  long last_trace = -1;  // the last MWCHECK-TRACE index the guest printed
  bool traces_done = false;
  long last_op = -1;     // the last MWCHECK-OP index within that trace
  std::string input;     // the last input the guest printed (kInputBegin)
  bool in_input = false;
  double boot_s = 0, run_s = 0;
};

// `first`: the place in the caller's list of the guest's first trace.
Boot boot_once(const VmOptions& o, bool kvm, const Image& img, const fs::path& dir, size_t first,
               const ConsoleLine& on_line) {
  Boot b;
  const fs::path console = dir / "console.log", results = dir / "results.bin";
  fs::remove(console);
  fs::remove(results);
  const std::vector<std::string> argv = {
      "qemu-system-x86_64", "-accel", kvm ? "kvm" : "tcg,thread=multi", "-cpu",
      kvm ? "host" : "max", "-m", "1024", "-smp", "2", "-display", "none", "-monitor", "none",
      "-no-reboot", "-nic", "none", "-kernel", img.kernel, "-initrd", (dir / "initrd").string(),
      // no_timer_check: under TCG on a busy host the kernel's check of the
      // IO-APIC timer can miss its ticks and panic a healthy boot.
      "-append", "console=ttyS0 panic=-1 quiet loglevel=4 no_timer_check rdinit=/init",
      "-serial", "file:" + console.string(), "-serial", "file:" + results.string()};
  const auto start = Clock::now();
  pid_t pid = 0;
  if (spawn_wait(argv, &pid) != 0) {
    b.console = "cannot start qemu-system-x86_64";
    return b;
  }
  size_t coff = 0, roff = 0;
  uint64_t cfreed = 0;
  bool holes = true;  // the file system frees a file's blocks inside it
  std::string partial;
  auto quiet_since = Clock::now();
  bool ready = false, exited = false, panicked = false;
  // What a report tells of the console (the kernel's lines and the
  // guest's messages, not its markers), in bounded memory.
  kernel::ConsoleKeeper account;
  const auto keep = [&](std::string_view line) {
    if (line.find("Kernel panic") != std::string_view::npos) panicked = true;
    // The op markers say where, not what: the account leaves them out, and
    // the inputs the guest prints.
    if (!b.in_input && !line.starts_with(kInputBegin) && !line.starts_with(kOpMarker) &&
        !line.starts_with(kAliveMarker))
      account.add(line);
  };
  // Takes one line the guest printed ('\r' taken off).
  const auto take = [&](std::string line) {
    keep(line);
    if (!kernel::is_kernel_line(line)) quiet_since = Clock::now();
    if (line.starts_with(kReadyMarker)) {
      ready = true;
      b.boot_s = since(start);
      b.release = line.size() > kReadyMarker.size() + 1 ? line.substr(kReadyMarker.size() + 1) : "";
    } else if (line.starts_with(kTraceMarker)) {
      b.last_trace = std::strtol(line.c_str() + kTraceMarker.size(), nullptr, 10);
      b.last_op = -1;
      b.traces_done = false;  // a later pass over the traces (minimizing) began
      // The guest counts in its own list: tell the caller the place in the whole one.
      line = std::string(kTraceMarker) + std::to_string(first + b.last_trace);
    } else if (line.starts_with(kInputBegin)) {
      b.input.clear();
      b.in_input = true;
      b.last_op = -1;
      return;
    } else if (line.starts_with(kInputEnd)) {
      b.in_input = false;
      return;
    } else if (b.in_input) {
      b.input += line + "\n";
      return;
    } else if (line.starts_with(kOpMarker)) {
      b.last_op = std::strtol(line.c_str() + kOpMarker.size(), nullptr, 10);
      return;  // one per op: not worth the caller's time
    } else if (line.starts_with(kAliveMarker)) {
      return;  // it has done its work: quiet_since moved
    } else if (line.starts_with(kTracesDone)) {
      b.traces_done = true;
    } else if (line.starts_with(kEndMarker)) {
      b.exit_code = std::atoi(line.c_str() + kEndMarker.size());
      b.end = End::finished;
    }
    if (on_line) on_line(line);
  };
  // Takes a line that may hold a program's unended output and a marker
  // joined (marker_inside), as the lines they were; an input's text is
  // taken as it is.
  const auto take_apart = [&](std::string line) {
    for (size_t at; !b.in_input && (at = marker_inside(line)) != std::string::npos; line.erase(0, at))
      take(line.substr(0, at));
    take(std::move(line));
  };
  for (;;) {
    int st = 0;
    exited = exited || waitpid(pid, &st, WNOHANG) == pid;  // reaped once
    // At most kPollBytes a poll: a guest printing faster than the host
    // reads is read on the next polls, not all at once.
    const std::string more = read_from(console, coff, kPollBytes);
    if (holes && coff - cfreed >= kFreeStep) holes = free_read_blocks(console, cfreed, coff);
    const std::string results_more = read_from(results, roff);
    b.output += results_more;
    // Progress is the guest program's: its results and its lines (markers,
    // messages), and while it boots any line. The kernel's own lines are
    // not: a guest stuck where the kernel reports it again and again (a
    // soft lockup every ~20 s, an RCU stall) would never be hung.
    if (!results_more.empty() || (!ready && !more.empty())) quiet_since = Clock::now();
    partial += more;
    // The lines are taken in one pass and their bytes dropped once: a
    // chatty guest's poll may bring thousands of lines.
    size_t from = 0;
    for (size_t nl; (nl = partial.find('\n', from)) != std::string::npos; from = nl + 1) {
      std::string line = partial.substr(from, nl - from);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      take_apart(std::move(line));
    }
    partial.erase(0, from);
    // A line that never ends is taken as far as it went.
    if (partial.size() > kPollBytes) take_apart(std::exchange(partial, {}));
    if (exited && more.size() < kPollBytes) break;  // its last words read
    if (exited) continue;
    // KVM is only tried: here it can hang a stock kernel before any output.
    const bool kvm_stuck = kvm && !ready && since(start) > kKvmProbeS;
    if (since(quiet_since) > o.quiet_limit_s || kvm_stuck) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      b.end = End::hung;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  b.output += read_from(results, roff);
  // A last line without its end is the account's too, as the guest's marks
  // are not.
  if (!partial.empty()) keep(partial);
  if (b.end != End::finished && b.end != End::hung) b.end = panicked ? End::panicked : End::failed;
  if (ready) b.run_s = since(start) - b.boot_s;
  b.console = account.account();
  return b;
}

// Returns what a boot's console tells, for a message: its account, or
// that it had none (the emulator ended, or was silent, before any line).
std::string console_said(const Boot& b, const VmOptions& o) {
  if (!b.console.empty()) return "its console ends:\n" + b.console;
  return b.end == End::hung ? "its console stayed empty for " + std::to_string(o.quiet_limit_s) + " s"
                            : "qemu-system-x86_64 ended with nothing on its console";
}

// Writes the initramfs of one boot: the cached parts and a last part with
// the arguments and the trace files.
// `args` gets the guest's names of the files appended when `append`.
// Guest copies are numbered by their place in the whole list (`first` is
// the place of files[0]), so the guest's folder order is the host's.
bool write_initrd(const Image& img, const fs::path& dir, std::vector<std::string> args,
                  bool append, const std::vector<std::string>& files, size_t first,
                  std::string& err) {
  const fs::path root = dir / "root", run = root / "run" / "mwcheck", corpus = run / "corpus";
  fs::remove_all(root);
  fs::create_directories(corpus);
  for (size_t i = 0; i < files.size(); ++i) {
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "%05zu-", first + i);
    const std::string name = prefix + fs::path(files[i]).filename().string();
    std::error_code ec;
    fs::copy_file(files[i], corpus / name, ec);
    if (ec) return err = files[i] + ": " + ec.message(), false;
    if (append) args.push_back("corpus/" + name);
  }
  std::ofstream a(run / "args");
  for (const auto& s : args) a << s << "\n";
  a.close();
  std::string parts = shell_quoted(img.system) + " " + shell_quoted(img.program);
  for (const auto& p : img.more) parts += " " + shell_quoted(p);
  const std::string cmd = "cd " + shell_quoted(root.string()) + " && find . | cpio -o -H newc --quiet > " +
                          shell_quoted((dir / "run.cpio").string()) + " && cat " + parts + " " +
                          shell_quoted((dir / "run.cpio").string()) + " > " +
                          shell_quoted((dir / "initrd").string());
  if (std::system(cmd.c_str()) != 0) return err = "cannot write the initramfs", false;
  return true;
}

// Returns whether every file of image `img` is still there.
bool image_whole(const Image& img) {
  const auto there = [](const std::string& f) {
    std::error_code ec;
    return fs::exists(f, ec);
  };
  return there(img.kernel) && there(img.system) && there(img.program) &&
         std::all_of(img.more.begin(), img.more.end(), there);
}

// Returns, in `img`, what `o` boots: built (or found in the cache) by the
// image script once per process and options, as nothing it reads changes
// while this process runs. Each run of the script hashes this binary and
// asks apt (about 3 s even when all is cached), which shrinking paid once
// a boot. A part gone from the cache (another build pruned it) is built
// again.
bool image_for(const VmOptions& o, Image& img, std::string& err) {
  static std::mutex mutex;
  static std::map<std::string, Image> built;
  // What the script reads besides its arguments: where the cache is, and
  // whether the image has python3.
  std::string key = image_command(o);
  for (const char* v : {"MWCHECK_CACHE", "XDG_CACHE_HOME", "HOME", "MWCHECK_IMAGE_PYTHON"}) {
    const char* x = std::getenv(v);
    key += std::string("\n") + v + (x ? "=" + std::string(x) : "");
  }
  const std::lock_guard lock(mutex);
  if (const auto it = built.find(key); it != built.end() && image_whole(it->second)) return img = it->second, true;
  if (!build_image(o, img, err)) return false;
  built[key] = img;
  return true;
}

}  // namespace

bool parse_device(std::string_view spec, VmOptions& o) {
  if (spec.starts_with("device:")) spec.remove_prefix(7);
  if (spec == "softroce") return o.kernel.clear(), true;
  if (!spec.starts_with("softroce:") || spec.size() == 9) return false;
  o.kernel = std::string(spec.substr(9));
  return true;
}

bool prepare_image(const VmOptions& o, std::string& err) {
  Image img;
  return image_for(o, img, err);
}

bool in_guest() { return std::getenv("MWCHECK_GUEST") != nullptr; }

GuestRun run_in_guest(const VmOptions& o, const std::vector<std::string>& args,
                      const std::vector<std::string>& files, bool files_as_args,
                      const LostTrace& lost, const ConsoleLine& console) {
  GuestRun g;
  const auto start = Clock::now();
  Image img;
  if (!image_for(o, img, g.error)) return g;
  g.times.image_s = since(start);
  // Under $TMPDIR as every temporary file of mwcheck (the initrd alone
  // takes about 40 MB).
  std::string tmpl = (temp_dir() / "mwcheck-vm-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    g.error = "cannot make a temporary folder in " + temp_dir().string();
    return g;
  }
  const fs::path dir = tmpl;
  bool kvm = o.kvm;
  int failed_boots = 0;  // in a row, before kReadyMarker
  int unready = 0;       // boots that ran nothing of ours: not counted against max_boots
  size_t done = 0;       // traces finished or lost so far
  while ((done < files.size() || (files.empty() && g.times.boots == unready)) &&
         g.times.boots - unready < o.max_boots) {
    const std::vector<std::string> rest(files.begin() + static_cast<long>(done), files.end());
    if (!write_initrd(img, dir, args, files_as_args, rest, done, g.error)) break;
    Boot b = boot_once(o, kvm, img, dir, done, console);
    ++g.times.boots;
    if (kvm && b.boot_s == 0) {  // KVM did not boot the kernel here: TCG it is
      kvm = false;
      ++unready;
      continue;
    }
    // A guest that died or went silent before it was ready ran nothing of
    // ours: that is the host's trouble (a starved emulator), no finding.
    if (b.boot_s == 0 && b.end != End::finished && ++failed_boots < kBootTries) {
      ++unready;
      continue;
    }
    if (b.boot_s > 0) failed_boots = 0;
    g.times.boot_s += b.boot_s;
    g.times.run_s += b.run_s;
    g.output += b.output;
    g.kernel_release = b.release;
    g.exit_code = b.exit_code;
    if (b.end == End::finished) break;
    if (b.traces_done) {  // every trace ran: what died was the work after them
      g.incident = std::string("the guest kernel ") + (b.end == End::hung ? "went silent" : "died") +
                   " after the last trace; " + console_said(b, o);
      break;
    }
    if (b.last_trace < 0 && !b.input.empty()) {  // in a fuzzer's input: the caller reports it
      g.lost_input = b.input;
      g.lost_op = b.last_op;
      g.lost_console = b.console;
      g.incident = std::string("the guest kernel ") + (b.end == End::hung ? "went silent" : "died") +
                   " in op " + std::to_string(b.last_op + 1) + " of an input:\n" + b.console;
      break;
    }
    if (b.boot_s == 0) {
      g.error = "the guest did not boot (" + std::to_string(kBootTries) +
                " tries); " + console_said(b, o);
      break;
    }
    if (b.last_trace < 0 || static_cast<size_t>(b.last_trace) >= rest.size()) {
      g.error = "the guest died before running any trace; " + console_said(b, o);
      break;
    }
    lost(done + static_cast<size_t>(b.last_trace), b.last_op, b.end == End::hung ? "TIMEOUT" : "CRASH",
         b.console);
    done += static_cast<size_t>(b.last_trace) + 1;
  }
  fs::remove_all(dir);
  g.times.total_s = since(start);
  return g;
}

namespace {
// Writes a marker line in one piece (one write to the console, which the
// kernel's tty layer does not interleave with another's): the console is
// shared with the programs the guest runs (their standard error), and a
// marker written in parts was torn by their lines, losing both.
void mark_line(std::ostream& err, std::string line) {
  line += '\n';
  err << line << std::flush;
}
}  // namespace

void mark_trace(size_t i, std::ostream& err) {
  if (in_guest()) mark_line(err, std::string(kTraceMarker) + std::to_string(i));
}

void mark_traces_done(std::ostream& err) {
  if (in_guest()) mark_line(err, std::string(kTracesDone));
}

void mark_alive(std::ostream& err) {
  if (in_guest()) mark_line(err, std::string(kAliveMarker));
}

void mark_candidate(uint64_t hash, std::ostream& err) {
  if (in_guest()) mark_line(err, std::string(kCandidateMarker) + std::to_string(hash));
}

}  // namespace mwc::softroce
