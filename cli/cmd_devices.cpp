// mwcheck devices: what --device can name on this machine: its ibverbs
// devices (with ports and GIDs, for --port and --gid-index) and the
// kernels the Soft-RoCE VM can boot.
#include <fmt/format.h>

#include "adapters/softroce/kernels.hpp"
#include "adapters/verbs/inventory.hpp"
#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/json_out.hpp"

namespace mwc::cli {

int cmd_devices(const ListOptions& o, std::ostream& out, std::ostream&) {
  std::string why;
  const auto devs = verbs::list_devices(why);
  const auto kernels = softroce::kernel_choices();
  if (o.json) {
    nlohmann::ordered_json j{{"devices", nlohmann::ordered_json::array()}, {"note", why},
                             {"softroce", nlohmann::ordered_json::array()}};
    for (const auto& d : devs) {
      nlohmann::ordered_json jd{{"name", d.name}, {"node_guid", d.node_guid}, {"error", d.error},
                                {"ports", nlohmann::ordered_json::array()}};
      for (const auto& p : d.ports) {
        nlohmann::ordered_json jp{{"port", p.port}, {"state", p.state}, {"link_layer", p.link_layer},
                                  {"gid_table", p.gid_table}, {"gids", nlohmann::ordered_json::array()}};
        for (const auto& g : p.gids) jp["gids"].push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}});
        jd["ports"].push_back(jp);
      }
      j["devices"].push_back(jd);
    }
    for (const auto& k : kernels) j["softroce"].push_back({{"spec", k.spec}, {"what", k.what}});
    print_json(out, j);
    return kExitOk;
  }
  out << "ibverbs devices (--device NAME):\n";
  if (devs.empty()) out << fmt::format("  none: {}\n", why);
  for (const auto& d : devs) {
    out << fmt::format("  {}{}\n", d.name, d.error.empty() ? "  node GUID " + d.node_guid : ": " + d.error);
    for (const auto& p : d.ports) {
      out << fmt::format("    port {}: {}, {}, {} GID{}\n", p.port, p.state, p.link_layer, p.gids.size(),
                         p.gids.size() == 1 ? "" : "s");
      for (const auto& g : p.gids) out << fmt::format("      gid {:<3} {}  {}\n", g.index, g.gid, g.type);
    }
  }
  out << "\nSoft-RoCE VM (--device SPEC):\n";
  for (const auto& k : kernels) out << fmt::format("  {:<20} {}\n", k.spec, k.what);
  return kExitOk;
}

}  // namespace mwc::cli
