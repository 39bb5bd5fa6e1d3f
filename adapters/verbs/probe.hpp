// What a device grants when asked: facts the model needs from the device
// rather than from the trace (ibv_create_qp(3): the capacities it returns
// may exceed the ones requested).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mwc::verbs {

// Returns, for each send queue depth 1..max_depth (index depth-1), the
// cap.max_send_wr ibv_create_qp gives an RC QP asked for it on `device`
// (the first device when empty), 0 where the QP could not be created; or
// nothing when the device cannot be opened.
std::vector<uint32_t> probe_send_depths(const std::string& device, uint32_t max_depth);

}  // namespace mwc::verbs
