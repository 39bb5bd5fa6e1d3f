#include "adapters/verbs/probe.hpp"

#include <infiniband/verbs.h>

namespace mwc::verbs {

std::vector<uint32_t> probe_send_depths(const std::string& device, uint32_t max_depth) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  ibv_context* ctx = nullptr;
  for (int i = 0; list && i < n && !ctx; ++i)
    if (device.empty() || device == ibv_get_device_name(list[i])) ctx = ibv_open_device(list[i]);
  if (list) ibv_free_device_list(list);
  if (!ctx) return {};
  std::vector<uint32_t> granted;
  ibv_pd* pd = ibv_alloc_pd(ctx);
  ibv_cq* cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
  if (pd && cq) {
    for (uint32_t d = 1; d <= max_depth; ++d) {
      ibv_qp_init_attr ia{};
      ia.send_cq = ia.recv_cq = cq;
      ia.qp_type = IBV_QPT_RC;
      ia.cap.max_send_wr = d;
      ia.cap.max_recv_wr = 1;
      ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
      ibv_qp* qp = ibv_create_qp(pd, &ia);
      granted.push_back(qp ? ia.cap.max_send_wr : 0);
      if (qp) ibv_destroy_qp(qp);
    }
  }
  if (cq) ibv_destroy_cq(cq);
  if (pd) ibv_dealloc_pd(pd);
  ibv_close_device(ctx);
  return granted;
}

}  // namespace mwc::verbs
