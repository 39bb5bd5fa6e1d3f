#include "cli/guest.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "adapters/minimize.hpp"
#include "cli/app.hpp"
#include "cli/load.hpp"
#include "refmodel/text_codec.hpp"
#include "util/atomic_file.hpp"
#include "util/quote.hpp"
#include "util/read_input.hpp"
#include "util/stdio_path.hpp"
#include "util/temp_dir.hpp"

namespace mwc::cli {

bool guest_said(std::string_view line) {
  if (line.starts_with("mwcheck") && line.find(": error: ") != std::string_view::npos) return true;
  // FILE (no blank, no colon), then :LINE:COL: error: or :LINE: mismatch
  // under, read in one pass: a backtracking regex recursed once per byte,
  // and a console line of 100 KB without a blank overflowed the stack.
  const size_t file = line.find_first_of(" \t\n\v\f\r:");
  if (file == 0 || file == std::string_view::npos || line[file] != ':') return false;
  size_t i = file + 1;
  const auto digits = [&] {
    const size_t from = i;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    return i > from;
  };
  if (!digits()) return false;
  if (line.substr(i).starts_with(": mismatch under ")) return true;
  if (i == line.size() || line[i] != ':') return false;
  ++i;
  return digits() && line.substr(i).starts_with(": error: ");
}

int softroce_spec(const std::vector<std::string>& specs) {
  if (softroce::in_guest()) return -1;
  for (size_t i = 0; i < specs.size(); ++i)
    if (is_softroce(specs[i])) return static_cast<int>(i);
  return -1;
}

bool guest_backends_ok(const std::vector<std::string>& specs, int vm, const DeviceConfig& dev,
                       std::string_view verb, std::ostream& err) {
  for (size_t i = 0; i < specs.size(); ++i) {
    // The same VM twice is rxe0 against itself (is the device deterministic?).
    if (static_cast<int>(i) == vm || specs[i] == specs[static_cast<size_t>(vm)]) continue;
    std::string why;
    if (specs[i].starts_with("device:"))
      why = fmt::format("{} cannot run beside {}: the Soft-RoCE VM holds its rxe0 alone (compare it with a "
                        "profile or a mutant)",
                        quote(specs[i]), quote(specs[static_cast<size_t>(vm)]));
    else if (make_backend(specs[i], why, dev))
      continue;
    err << fmt::format("mwcheck {}: error: {}\n", verb, why);
    return false;
  }
  return true;
}

std::vector<std::string> device_args(const DeviceConfig& d) {
  std::vector<std::string> a = {"--op-timeout", std::to_string(d.op_timeout_ms)};
  for (const auto& f : d.inject) a.insert(a.end(), {"--inject", f});
  if (d.port != 1) a.insert(a.end(), {"--port", std::to_string(d.port)});
  if (d.gid_index >= 0) a.insert(a.end(), {"--gid-index", std::to_string(d.gid_index)});
  return a;
}

namespace {
constexpr std::string_view kFileMarker = "MWCHECK-FILE ";

// Takes the file blocks out of the guest's output into `dir` (saying so
// when `announce`); returns the rest.
std::string take_files(const std::string& text, const std::string& dir, bool announce, std::ostream& err) {
  std::string rest;
  size_t at = 0;
  for (size_t m; (m = text.find(kFileMarker, at)) != std::string::npos;) {
    rest += text.substr(at, m - at);
    const size_t nl = text.find('\n', m);
    if (nl == std::string::npos) return rest;
    std::istringstream head(text.substr(m + kFileMarker.size(), nl - m - kFileMarker.size()));
    std::string name;
    size_t size = 0;
    head >> name >> size;
    const std::string body = text.substr(nl + 1, size);
    at = nl + 1 + body.size();
    const auto path = std::filesystem::path(dir) / std::filesystem::path(name).filename();
    std::string why;
    if (dir.empty() || !write_file(path.string(), body, why))
      err << fmt::format("mwcheck: the guest sent {}, which could not be written{}\n", quote(name),
                         why.empty() ? "" : ": " + why);
    else if (announce)
      err << fmt::format("wrote {}\n", path.string());
  }
  return rest + text.substr(at);
}


// The files the VM is given, each checked here before anything is packed
// or booted, so that a typo is said at once, in its place: a regular file
// as it is; anything else (standard input, a pipe, a FIFO) read whole,
// within a trace's limits, into a folder of this run's own, removed with
// this.
class GuestCopies {
 public:
  GuestCopies() = default;
  GuestCopies(const GuestCopies&) = delete;
  GuestCopies& operator=(const GuestCopies&) = delete;
  ~GuestCopies() {
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }
  // Returns where the VM takes the file the user named `name` from, or ""
  // after printing why it cannot (NAME:LINE:COL: error: ...) to `err`.
  std::string source(const std::string& name, std::ostream& err) {
    const auto refused = [&](const InputError& e) {
      return err << fmt::format("{}:{}:{}: error: {}\n", name, e.line, e.col, e.message), std::string();
    };
    // Anything but a regular file is opened once only: a FIFO opened and
    // closed here would lose what its writer wrote.
    struct stat st {};
    InputError e;
    if (name != kStdioPath && ::stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      const int fd = open_input(name, st, e);
      if (fd < 0) return refused(e);
      ::close(fd);
      return name;
    }
    std::string bytes, why;
    if (!read_input(name, kTraceLimits, bytes, e)) return refused(e);
    if (dir_.empty()) {
      std::string tmpl = (temp_dir() / "mwcheck-vm-input-XXXXXX").string();
      if (!mkdtemp(tmpl.data()))
        return refused({1, 1, "cannot keep a copy for the VM in " + tmpl + ": " + std::strerror(errno)});
      dir_ = tmpl;
    }
    const auto path = dir_ / fmt::format("{}{}{}", name == kStdioPath ? "stdin" : "input", kept_++,
                                         bytes.starts_with(kTraceLimits.binary_magic) ? ".mwb" : ".mwt");
    if (!write_file(path.string(), bytes, why)) return refused({1, 1, "cannot keep a copy for the VM: " + why});
    return path.string();
  }

 private:
  std::filesystem::path dir_;
  size_t kept_ = 0;
};
}  // namespace

void send_file(const std::string& name, const std::string& text, std::ostream& out) {
  if (softroce::in_guest()) out << kFileMarker << name << " " << text.size() << "\n" << text << std::flush;
}

int run_args_in_softroce(const std::string& spec, const DeviceConfig& dev,
                         const std::vector<std::string>& args,
                         const std::vector<std::string>& files, std::ostream& out,
                         std::ostream& err, bool files_as_args, const std::string& out_dir,
                         const GuestSetup& setup) {
  softroce::VmOptions vm;
  softroce::parse_device(spec, vm);
  vm.kvm = dev.kvm;
  vm.programs = setup.programs;
  // With --json stdout is the guest's one JSON document: what the host has
  // to say of a dead guest goes to stderr.
  std::ostream& said = std::find(args.begin(), args.end(), "--json") != args.end() ? err : out;
  const softroce::LostTrace lost_trace = [&](size_t i, long op, const std::string& how,
                                             const std::string& console) {
    said << fmt::format("{}: {} at op {}: the guest kernel {} while this trace ran:\n{}\n", files[i], how,
                        op + 1, how == "CRASH" ? "died" : "went silent", console);
  };
  // Where the VM takes each file from (named as `files` says): every one
  // checked before the boot (a typo costs no boot).
  GuestCopies copies;
  std::vector<std::string> sent;
  bool refused = false;
  for (const std::string& f : files) {
    const std::string& from = sent.emplace_back(copies.source(f, err));
    refused |= from.empty() || (setup.traces && !load_trace(from, f, err));
  }
  if (refused) return kExitBadInput;
  // The guest's copies are corpus/NNNNN-NAME: gives the host's names back.
  const auto host_names = [&](std::string text) {
    for (size_t i = 0; i < files.size(); ++i) {
      const std::string guest =
          fmt::format("corpus/{:05}-{}", i, std::filesystem::path(sent[i]).filename().string());
      for (size_t at = 0; (at = text.find(guest, at)) != std::string::npos; at += files[i].size())
        text.replace(at, guest.size(), files[i]);
    }
    return text;
  };
  size_t lost = 0;  // files the guest kernel died in (or went silent in)
  const softroce::LostTrace count_lost = [&](size_t i, long op, const std::string& how, const std::string& console) {
    ++lost;
    (setup.lost ? setup.lost : lost_trace)(i, op, how, console);
  };
  const auto g = softroce::run_in_guest(
      vm, args, sent, files_as_args, count_lost, [&](const std::string& line) {
        // What mwcheck says on its stderr there (the console): bad input
        // only the guest can see, such as a --gid-index rxe0 lacks or a
        // trace that does not parse, and run --check's mismatches.
        if (guest_said(line))
          err << host_names(line.substr(0, line.find_last_not_of("\r\n") + 1)) << " (in the Soft-RoCE guest)\n";
        if (setup.console) setup.console(line);
      });
  if (!g.error.empty()) {
    err << "mwcheck: error: Soft-RoCE VM: " << g.error << "\n";
    return kExitBadInput;
  }
  if (!g.lost_input.empty()) {
    // A finding of its own: the input up to the op the kernel died in.
    auto parsed = parse_text(g.lost_input);
    if (auto* t = std::get_if<Trace>(&parsed)) {
      std::vector<uint32_t> keep;
      for (long k = 0; k <= g.lost_op && k < static_cast<long>(t->ops.size()); ++k)
        keep.push_back(static_cast<uint32_t>(k));
      // The kernel's account heads the file: what crashed, and where, tells
      // one kernel bug from another when a campaign's inputs are judged.
      std::string text = "# the guest kernel died in the last op of this input\n";
      std::istringstream account(g.lost_console);
      for (std::string line; std::getline(account, line);)
        if (!line.empty()) text += std::string(kKernelAccountLine) + line + "\n";
      text += print_text(keep_ops(*t, keep));
      const auto path = std::filesystem::path(out_dir.empty() ? "." : out_dir) / kGuestKernelFinding;
      if (std::string why; write_file(path.string(), text, why))
        said << fmt::format("guest kernel finding -> {}\n", path.string());
      else
        err << fmt::format("{}:1:1: error: cannot write {}\n", path.string(), why);
      said << text;
    }
    said << g.incident << "\n";
  }
  out << host_names(take_files(g.output, out_dir, setup.announce_files, err));
  err << fmt::format("softroce ({}): image {:.1f} s, boot {:.1f} s, run {:.1f} s, total {:.1f} s, {} boot{}\n",
                     g.kernel_release, g.times.image_s, g.times.boot_s, g.times.run_s,
                     g.times.total_s, g.times.boots, g.times.boots == 1 ? "" : "s");
  // A file the guest kernel died in is a finding of its own, whatever
  // the guest command said of the rest.
  return g.exit_code < 0 || !g.lost_input.empty() || (lost > 0 && g.exit_code == kExitOk) ? kExitFail : g.exit_code;
}

}  // namespace mwc::cli
