// What ibverbs devices this machine has, with their ports and GIDs: for
// `mwcheck devices`, and to check --port and --gid-index before a run.
#pragma once
#include <string>
#include <vector>

namespace mwc::verbs {

struct GidInfo {
  int index = 0;
  std::string gid;   // fe80:0000:...:0001
  std::string type;  // "IB", "RoCE v1", "RoCE v2"
};

struct PortInfo {
  int port = 0;             // from 1
  std::string state;        // "ACTIVE", "DOWN", ... (ibv_port_state_str)
  std::string link_layer;   // "InfiniBand", "Ethernet"
  int gid_table = 0;        // entries in its GID table
  std::vector<GidInfo> gids;  // the valid ones
};

struct DeviceInfo {
  std::string name;       // rxe0, mlx5_0
  std::string node_guid;  // 0002:c903:0000:1234
  std::string error;      // the device could not be opened or queried
  std::vector<PortInfo> ports;
};

// Returns this machine's ibverbs devices, or none with `why` set when
// libibverbs finds none or cannot look (no RDMA subsystem).
std::vector<DeviceInfo> list_devices(std::string& why);

}  // namespace mwc::verbs
