#include "cli/guest.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "adapters/softroce/vm.hpp"
#include "cli/app.hpp"

namespace mwc::cli {

int softroce_spec(const std::vector<std::string>& specs) {
  if (softroce::in_guest()) return -1;
  for (size_t i = 0; i < specs.size(); ++i)
    if (is_softroce(specs[i])) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> device_args(const DeviceConfig& d) {
  std::vector<std::string> a = {"--op-timeout", std::to_string(d.op_timeout_ms)};
  for (const auto& f : d.inject) a.insert(a.end(), {"--inject", f});
  return a;
}

void mark_trace(size_t i, std::ostream& err) {
  if (softroce::in_guest()) err << softroce::kTraceMarker << i << std::endl;
}

void mark_traces_done(std::ostream& err) {
  if (softroce::in_guest()) err << softroce::kTracesDone << std::endl;
}

int run_args_in_softroce(const std::string& spec, const DeviceConfig& dev,
                         const std::vector<std::string>& args,
                         const std::vector<std::string>& files, std::ostream& out,
                         std::ostream& err) {
  softroce::VmOptions vm;
  softroce::parse_device(spec, vm);
  vm.kvm = dev.kvm;
  const auto g = softroce::run_in_guest(
      vm, args, files, true,
      [&](size_t i, long op, const std::string& how, const std::string& console) {
        out << fmt::format("{}: {} at op {}: the guest kernel {} while this trace ran:\n{}\n",
                           files[i], how, op + 1, how == "CRASH" ? "died" : "went silent", console);
      },
      nullptr);
  if (!g.error.empty()) {
    err << "mwcheck: error: Soft-RoCE VM: " << g.error << "\n";
    return kExitBadInput;
  }
  // The guest's copies are corpus/NNNNN-NAME: give the host's names back.
  std::string text = g.output;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string guest =
        fmt::format("corpus/{:05}-{}", i, std::filesystem::path(files[i]).filename().string());
    for (size_t at; (at = text.find(guest)) != std::string::npos;) text.replace(at, guest.size(), files[i]);
  }
  out << text;
  err << fmt::format("softroce ({}): image {:.1f} s, boot {:.1f} s, run {:.1f} s, total {:.1f} s, {} boot{}\n",
                     g.kernel_release, g.times.image_s, g.times.boot_s, g.times.run_s,
                     g.times.total_s, g.times.boots, g.times.boots == 1 ? "" : "s");
  return g.exit_code < 0 ? kExitFail : g.exit_code;
}

}  // namespace mwc::cli
