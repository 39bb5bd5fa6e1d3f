#include "adapters/verbs/mapping.hpp"

#include <cerrno>

#include <infiniband/verbs.h>

namespace mwc::verbs {

Result result_of_errno(int e) {
  switch (e) {
#define X(name) \
  case name: return Result::k##name;
    MWC_ERRNOS(X)
#undef X
    default: return Result::kEIO;
  }
}

WcStatus wc_status_of(int s) {
  // The vocabulary's first status, NONE, is no ibv_wc_status: a value no
  // device reports stands in for it so the list expands unchanged.
  constexpr int NONE = -1;
  switch (s) {
#define X(name) \
  case name: return WcStatus::k##name;
    MWC_WC_STATUSES(X)
#undef X
    default: return WcStatus::kIBV_WC_GENERAL_ERR;
  }
}

WcOpcode wc_opcode_of(int op) {
  constexpr int NONE = -1;  // as in wc_status_of
  switch (op) {
#define X(name) \
  case name: return WcOpcode::k##name;
    MWC_WC_OPCODES(X)
#undef X
    default: return WcOpcode::kNONE;
  }
}

uint32_t verbs_access(uint32_t a, bool for_mr) {
  // The trace's bits are verbs' own (vocab.def says so; this checks it).
  static_assert(acc::LOCAL_WRITE == uint32_t{IBV_ACCESS_LOCAL_WRITE} &&
                acc::REMOTE_WRITE == uint32_t{IBV_ACCESS_REMOTE_WRITE} &&
                acc::REMOTE_READ == uint32_t{IBV_ACCESS_REMOTE_READ} &&
                acc::REMOTE_ATOMIC == uint32_t{IBV_ACCESS_REMOTE_ATOMIC} &&
                acc::MW_BIND == uint32_t{IBV_ACCESS_MW_BIND} &&
                acc::ZERO_BASED == uint32_t{IBV_ACCESS_ZERO_BASED});
  a &= ~acc::LOCAL_READ;
  if (for_mr) a &= ~acc::ZERO_BASED;
  return a;
}

uint32_t transition_attrs(QpState from, QpState to, uint32_t qp_type) {
  using S = QpState;
  const bool connected = qp_type == qpt::RC || qp_type == qpt::UC;
  if (to == S::kINIT && (from == S::kRESET || from == S::kINIT)) return kInit;
  if (from == S::kINIT && to == S::kRTR) return connected ? kConnect : kStateOnly;
  if (from == S::kRTR && to == S::kRTS) return kSend;
  return kStateOnly;
}

}  // namespace mwc::verbs
