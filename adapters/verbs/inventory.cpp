#include "adapters/verbs/inventory.hpp"

#include <endian.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <infiniband/verbs.h>

namespace mwc::verbs {
namespace {

std::string gid_text(const uint8_t* raw) {
  char b[40];
  char* p = b;
  for (int i = 0; i < 16; i += 2) p += std::snprintf(p, 6, "%s%02x%02x", i ? ":" : "", raw[i], raw[i + 1]);
  return b;
}

std::string failed(const char* verb) { return std::string(verb) + ": " + std::strerror(errno); }

const char* gid_type(unsigned t) {
  switch (t) {
    case IBV_GID_TYPE_IB: return "IB";
    case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
    default: return "unknown";
  }
}

// Fills in one open device's ports and their valid GIDs.
void query(ibv_context* ctx, DeviceInfo& d) {
  ibv_device_attr da{};
  if (ibv_query_device(ctx, &da)) {
    d.error = failed("ibv_query_device");
    return;
  }
  const uint64_t g = be64toh(da.node_guid);
  char guid[24];
  std::snprintf(guid, sizeof guid, "%04x:%04x:%04x:%04x", static_cast<unsigned>(g >> 48),
                static_cast<unsigned>((g >> 32) & 0xffff), static_cast<unsigned>((g >> 16) & 0xffff),
                static_cast<unsigned>(g & 0xffff));
  d.node_guid = guid;
  for (int p = 1; p <= da.phys_port_cnt; ++p) {
    ibv_port_attr pa{};
    PortInfo pi;
    pi.port = p;
    if (ibv_query_port(ctx, static_cast<uint8_t>(p), &pa)) {
      pi.state = "unknown (" + failed("ibv_query_port") + ")";
      d.ports.push_back(pi);
      continue;
    }
    pi.state = ibv_port_state_str(pa.state);
    pi.link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
    pi.gid_table = pa.gid_tbl_len;
    for (int i = 0; i < pa.gid_tbl_len; ++i) {
      ibv_gid_entry e{};
      if (ibv_query_gid_ex(ctx, static_cast<uint32_t>(p), static_cast<uint32_t>(i), &e, 0)) continue;
      pi.gids.push_back({i, gid_text(e.gid.raw), gid_type(e.gid_type)});
    }
    d.ports.push_back(pi);
  }
}

}  // namespace

std::vector<DeviceInfo> list_devices(std::string& why) {
  std::vector<DeviceInfo> r;
  int n = 0;
  errno = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list) {
    if (!errno) errno = ENODEV;
    why = failed("ibv_get_device_list");
    return r;
  }
  for (int i = 0; i < n; ++i) {
    DeviceInfo d;
    d.name = ibv_get_device_name(list[i]);
    if (ibv_context* ctx = ibv_open_device(list[i])) {
      query(ctx, d);
      ibv_close_device(ctx);
    } else {
      d.error = failed("ibv_open_device");
    }
    r.push_back(std::move(d));
  }
  ibv_free_device_list(list);
  if (r.empty()) why = "libibverbs finds no device";
  return r;
}

}  // namespace mwc::verbs
