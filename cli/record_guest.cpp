#include "cli/record_guest.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "cli/record_programs.hpp"
#include "refmodel/text_codec.hpp"
#include "util/atomic_file.hpp"
#include "util/quote.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {
std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes the file `from` at `to` (beside it first, then renamed). Returns
// false after saying why it could not.
bool copy_into_place(const fs::path& from, const std::string& to, std::ostream& err) {
  std::string why;
  if (write_file(to, read_text(from), why)) return true;
  err << fmt::format("{}:1:1: error: cannot write {}\n", to, why);
  return false;
}
}  // namespace

int record_in_softroce(const RecordOptions& o, const std::vector<std::string>& programs,
                       const std::string& recorder, std::ostream& out, std::ostream& err) {
  const char* path_env = std::getenv("PATH");
  auto guest = guest_command(programs, o.command, path_env ? path_env : "", busybox_applets());
  if (auto* why = std::get_if<std::string>(&guest))
    return err << "mwcheck record: error: " << *why << "\n", kExitBadInput;
  const GuestCommand& g = std::get<GuestCommand>(guest);
  const fs::path dest = fs::absolute(o.out).parent_path();
  const std::string name = fs::path(o.out).filename().string();
  std::error_code ec;
  if (!fs::is_directory(dest, ec))
    return err << fmt::format("{}:1:1: error: cannot write: no folder {}\n", o.out, dest.string()), kExitBadInput;
  if (!o.log.empty() && !fs::is_directory(fs::absolute(o.log).parent_path(), ec))
    return err << fmt::format("{}:1:1: error: cannot write: no folder {}\n", o.log,
                              fs::absolute(o.log).parent_path().string()),
           kExitBadInput;
  // The guest writes text; the host converts to .mwb when asked.
  const bool binary = name.ends_with(".mwb");
  const std::string guest_name = binary ? name.substr(0, name.size() - 4) + ".mwt" : name;
  const std::string guest_log = guest_name + ".log";
  const std::string guest_lib = "corpus/00000-" + fs::path(recorder).filename().string();
  std::vector<std::string> args = {"record", "-o", guest_name, "--preload", guest_lib,
                                   "--timeout", std::to_string(o.timeout_s)};
  if (!o.log.empty()) args.insert(args.end(), {"--log", guest_log});
  for (const auto& p : g.programs)
    args.insert(args.end(), {"--program", std::string(softroce::kGuestProgramDir) + "/" +
                                              fs::path(p).filename().string()});
  args.push_back("--");
  args.insert(args.end(), g.command.begin(), g.command.end());

  GuestSetup setup;
  setup.programs = g.programs;
  setup.announce_files = false;  // they land in a folder of ours first
  // The programs' standard error (and the kernel's warnings) reach the
  // console: show them as they come.
  bool running = false, lost = false;
  setup.console = [&](const std::string& line) {
    if (line.starts_with(softroce::kReadyMarker)) running = true;
    else if (line.starts_with(softroce::kEndMarker)) running = false;  // the power-off follows
    else if (running && !line.starts_with(softroce::kMarkerPrefix)) err << line << "\n";
  };
  setup.lost = [&](size_t, long, const std::string& how, const std::string& console) {
    lost = true;
    out << fmt::format("the guest kernel {} while the program ran ({}); no trace. Its console ends:\n{}\n",
                       how == "CRASH" ? "died" : "went silent", how, console);
  };
  // What the guest sends lands here first, so that an old trace is never
  // taken for this run's, and then goes where -o and --log say.
  std::string tmpl = (fs::temp_directory_path() / "mwcheck-record-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) return err << "mwcheck: cannot make a temporary folder\n", kExitBadInput;
  const fs::path got = tmpl;
  const int rc = run_args_in_softroce(o.device, o.dev, args, {recorder}, out, err, false, got.string(), setup);
  const int status = lost ? kExitFail : rc != kExitOk && rc != kExitFail ? rc : [&] {
    if (!o.log.empty() && fs::exists(got / guest_log)) {
      if (!copy_into_place(got / guest_log, o.log, err)) return kExitBadInput;
      err << fmt::format("wrote {}\n", o.log);
    }
    if (!fs::exists(got / guest_name)) return rc == kExitOk ? kExitBadInput : rc;  // the guest said why
    auto text = read_text(got / guest_name);
    // The trace names the command as the guest ran it: give the host's.
    const std::string guest_source = "from " + joined(g.command), host_source = "from " + joined(o.command);
    if (const size_t at = text.find(guest_source); at != std::string::npos && at < text.find('\n'))
      text.replace(at, guest_source.size(), host_source);
    if (binary) {
      auto parsed = parse_text(text);
      const auto* t = std::get_if<Trace>(&parsed);
      if (!t)
        return err << fmt::format("{}:1:1: error: the guest's trace does not parse\n", o.out), kExitBadInput;
      if (!save_trace(*t, o.out, out, err)) return kExitBadInput;
    } else if (std::string why; !write_file(o.out, text, why)) {
      return err << fmt::format("{}:1:1: error: cannot write {}\n", o.out, why), kExitBadInput;
    }
    err << fmt::format("wrote {}\n", o.out);
    return rc;
  }();
  fs::remove_all(got, ec);
  return status;
}

}  // namespace mwc::cli
