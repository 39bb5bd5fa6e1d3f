// The pure part of the verbs adapter: how trace values become verbs values
// and how verbs results become outcomes. Nothing here touches a device, so
// all of it is unit-tested on machines without one.
#pragma once
#include <cstdint>

#include "refmodel/field.hpp"
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
// Returns rkey with its low (key) byte replaced by `byte`.
constexpr uint32_t with_key_byte(uint32_t rkey, uint8_t byte) {
  return (rkey & ~0xffu) | byte;
}
// Returns the key byte a BIND_MW work request asks for: relative to the
// consumer's current rkey, or absolute, counted from the key byte the window
// had when allocated (the model starts every fresh window at 0).
uint8_t wr_key_byte(const Arg& key, uint32_t cur_rkey, uint8_t alloc_byte);
// Returns a successful bind's key outcome: how far the key byte moved since
// allocation, modulo 256.
constexpr int16_t key_outcome(uint32_t rkey, uint8_t alloc_byte) {
  return static_cast<uint8_t>(static_cast<uint8_t>(rkey) - alloc_byte);
}

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
