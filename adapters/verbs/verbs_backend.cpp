#include "adapters/verbs/verbs_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include <infiniband/verbs.h>

#include "adapters/faults.hpp"
#include "adapters/isolate.hpp"
#include "adapters/softroce/vm.hpp"
#include "refmodel/text_codec.hpp"
#include "adapters/verbs/inventory.hpp"
#include "adapters/verbs/probe.hpp"
#include "adapters/verbs/session.hpp"
#include "refmodel/model.hpp"

namespace mwc {
namespace {

class VerbsBackend final : public Backend {
 public:
  VerbsBackend(std::string device, const DeviceConfig& cfg,
               std::vector<std::pair<verbs::Fault, std::string>> faults)
      : name_("device:" + device), faults_(std::move(faults)) {
    opts_.device = std::move(device);
    opts_.op_timeout_ms = cfg.op_timeout_ms;
    opts_.port = cfg.port;
    opts_.gid_index = cfg.gid_index;
  }
  const std::string& name() const override { return name_; }
  int expectation_column() const override { return -1; }
  std::string note() const override { return note_; }
  int last_child() const override { return child_; }
  std::vector<uint32_t> granted_send_depths() override {
    return verbs::probe_send_depths(opts_.device, static_cast<uint32_t>(kMaxDepth));
  }

  void run(const Trace& t, std::vector<Outcome>& outcomes) override {
    // A trace that is no file (a fuzzer's input) goes to the guest's
    // console first: if the kernel dies in it, the host has it.
    if (t.origin.empty() && softroce::in_guest())
      if (std::FILE* c = std::fopen("/dev/console", "w")) {
        std::fprintf(c, "%.*s\n%s%.*s\n", static_cast<int>(softroce::kInputBegin.size()),
                     softroce::kInputBegin.data(), print_text(t).c_str(),
                     static_cast<int>(softroce::kInputEnd.size()), softroce::kInputEnd.data());
        std::fclose(c);
      }
    verbs::SessionOptions o = opts_;
    const std::string stem = std::filesystem::path(t.origin).stem().string();
    // (In the Soft-RoCE guest, trace files are copies named NNNNN-NAME.)
    for (const auto& [fault, trace] : faults_)
      if (stem == trace || stem.ends_with("-" + trace)) o.fault = fault;
    // An op may wait twice for a completion (posting, then polling); past
    // that and some slack (slow verbs under TCG), the child is stuck.
    const int deadline = 2 * o.op_timeout_ms + std::min(5000, 4 * o.op_timeout_ms);
    const IsolatedResult r = run_isolated(
        t.ops.size(), deadline,
        [&](const auto& emit, std::string& err) {
          auto s = verbs::Session::open(o, err);
          if (!s) return false;
          s->begin(t);
          for (const Op& op : t.ops) emit(s->step(op));
          return true;
        },
        outcomes);
    note_ = r.note;
    child_ = r.pid;
    if (r.setup_failed)
      for (auto& x : outcomes) x.ret = Result::kCRASH;
  }

 private:
  std::string name_, note_;
  int child_ = 0;
  verbs::SessionOptions opts_;
  std::vector<std::pair<verbs::Fault, std::string>> faults_;
};

}  // namespace

std::vector<std::string> verbs_device_names() {
  std::vector<std::string> names;
  int n = 0;
  if (ibv_device** list = ibv_get_device_list(&n)) {
    for (int i = 0; i < n; ++i) names.emplace_back(ibv_get_device_name(list[i]));
    ibv_free_device_list(list);
  }
  return names;
}

std::unique_ptr<Backend> make_verbs_backend(std::string_view name, const DeviceConfig& cfg,
                                            std::string& err) {
  std::vector<std::pair<verbs::Fault, std::string>> faults;
  for (const auto& spec : cfg.inject) {
    const size_t colon = spec.find(':');
    const auto f = colon == std::string::npos ? std::nullopt : fault_from_name(spec.substr(0, colon));
    if (!f) {
      err = "bad fault '" + spec + "' (faults: " + fault_specs() + ")";
      return nullptr;
    }
    faults.emplace_back(f->id, spec.substr(colon + 1));
  }
  const auto names = verbs_device_names();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string have;
    for (const auto& n : names) have += (have.empty() ? "" : ", ") + n;
    err = "no ibverbs device named '" + std::string(name) + "' on this machine (" +
          (have.empty() ? "it has none; --device softroce runs one in a VM" : "it has: " + have) +
          ")";
    return nullptr;
  }
  // The port and GID asked for, checked here rather than in each trace's child.
  std::string why;
  for (const auto& d : verbs::list_devices(why)) {
    if (d.name != name || !d.error.empty()) continue;
    const auto port = std::find_if(d.ports.begin(), d.ports.end(), [&](const auto& p) { return p.port == cfg.port; });
    if (port == d.ports.end()) {
      err = "device '" + d.name + "' has no port " + std::to_string(cfg.port) + " (ports: 1-" +
            std::to_string(d.ports.size()) + ")";
      return nullptr;
    }
    if (cfg.gid_index >= 0 && std::none_of(port->gids.begin(), port->gids.end(),
                                           [&](const auto& g) { return g.index == cfg.gid_index; })) {
      err = "port " + std::to_string(cfg.port) + " of device '" + d.name + "' has no valid GID at index " +
            std::to_string(cfg.gid_index) + " (mwcheck devices lists them)";
      return nullptr;
    }
  }
  return std::make_unique<VerbsBackend>(std::string(name), cfg, std::move(faults));
}

}  // namespace mwc
