// The pure part of the verbs adapter: how trace values become verbs values
// and how verbs results become outcomes. Nothing here touches a device, so
// all of it is unit-tested on machines without one.
#pragma once
#include <cstdint>

#include "refmodel/vocab.hpp"

namespace mwc::verbs {

// Returns the outcome name of an errno value (EIO for one the vocabulary
// has no name for).
Result result_of_errno(int e);
// Returns the outcome name of an enum ibv_wc_status value.
WcStatus wc_status_of(int ibv_status);
// Returns the outcome name of an enum ibv_wc_opcode value of a send queue's
// completion (NONE for a receive's or one the vocabulary has no name for).
WcOpcode wc_opcode_of(int ibv_opcode);
// Returns the enum ibv_access_flags bits of a trace's access set: DET's
// LOCAL_READ right has no verbs bit (local read is implicit) and is dropped;
// ZERO_BASED on an MR means "register at iova 0" and is dropped too.
uint32_t verbs_access(uint32_t trace_access, bool for_mr);
// (Keys and addresses: book.hpp, on refmodel/layout.hpp and the rules.)

// The attributes ibv_modify_qp needs for one transition of a QP type.
enum AttrSet : uint32_t {
  kStateOnly = 0,
  kInit = 1,     // pkey index, port, access flags (RC/UC) or qkey (UD)
  kConnect = 2,  // path, destination QP, receive PSN (RC/UC); RC: responder resources
  kSend = 4,     // send PSN; RC: timeout, retries, initiator resources
};
// Returns which attribute groups a transition of a QP of type `qp_type`
// carries, besides the new state.
uint32_t transition_attrs(QpState from, QpState to, uint32_t qp_type);

}  // namespace mwc::verbs
