// mwcheck record: runs an unmodified libibverbs program with the recorder
// preloaded (record/interpose.cpp), then turns the log it wrote into a
// trace whose expected outcomes are what the program saw. With --device
// softroce it does so inside the Soft-RoCE VM and brings the trace back
// (record_guest.cpp); record_run.cpp runs the command.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "cli/record_guest.hpp"
#include "cli/record_programs.hpp"
#include "cli/record_run.hpp"
#include "record/event_log.hpp"
#include "record/to_trace.hpp"
#include "refmodel/text_codec.hpp"
#include "util/atomic_file.hpp"
#include "util/install_layout.hpp"
#include "util/read_input.hpp"
#include "util/stdio_path.hpp"
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
  if (!save_trace(r.trace, o.out, out, err)) return kExitBadInput;
  out << fmt::format("recorded {} ops ({} with the outcome the program saw) into {}\n",
                     r.trace.ops.size(), r.expected, o.out);
  for (const auto& s : r.skipped) out << "  " << s << "\n";
  if (softroce::in_guest()) send_file(o.out, print_text(r.trace), out);
  return kExitOk;
}

}  // namespace

int cmd_record(const RecordOptions& o, std::ostream& out, std::ostream& err) {
  // Standard output carries record's account (and the program's output).
  for (const auto& [option, path] : {std::pair{"-o", &o.out}, std::pair{"--log", &o.log}})
    if (*path == kStdioPath)
      return err << fmt::format("mwcheck record: error: {} -: record says what it recorded on standard output; "
                                "name a file (./- for one called -)\n",
                                option),
             kExitBadInput;
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
  const char* path_env = std::getenv("PATH");
  const auto programs = resolve_programs(o.programs, path_env ? path_env : "");
  if (auto* why = std::get_if<std::string>(&programs))
    return err << "mwcheck record: error: " << *why << "\n", kExitBadInput;
  const std::string lib = recorder_path(o);
  if (!fs::exists(lib)) return err << fmt::format("mwcheck: no recorder at {}\n", lib), kExitBadInput;
  if (!o.device.empty()) return record_in_softroce(o, std::get<0>(programs), lib, out, err);
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
  // The host knows which program ran while the guest died (record_guest.cpp).
  softroce::mark_trace(0, err);
  const auto ended = run_recorded({o.command, std::get<0>(programs), lib, log, o.timeout_s}, err);
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
