#include "adapters/verbs/mapping.hpp"

#include <cerrno>

#include <gtest/gtest.h>
#include <infiniband/verbs.h>

namespace mwc::verbs {
namespace {

TEST(Mapping, ErrnoNamesAreTheKernelsOwn) {
  EXPECT_EQ(result_of_errno(EPERM), Result::kEPERM);
  EXPECT_EQ(result_of_errno(EINVAL), Result::kEINVAL);
  EXPECT_EQ(result_of_errno(ENOMEM), Result::kENOMEM);
  EXPECT_EQ(result_of_errno(EOPNOTSUPP), Result::kEOPNOTSUPP);
  EXPECT_EQ(result_of_errno(ETIMEDOUT), Result::kETIMEDOUT);
  EXPECT_EQ(result_of_errno(ENOTTY), Result::kEIO);  // outside the vocabulary
}

TEST(Mapping, EveryWcStatusOfVerbsHasItsName) {
  for (int s = IBV_WC_SUCCESS; s <= IBV_WC_TM_RNDV_INCOMPLETE; ++s) {
    const WcStatus w = wc_status_of(s);
    EXPECT_NE(w, WcStatus::kNONE) << s;
    // Only IBV_WC_GENERAL_ERR itself may read as IBV_WC_GENERAL_ERR: every
    // other status of verbs.h has a name of its own.
    EXPECT_EQ(w == WcStatus::kIBV_WC_GENERAL_ERR, s == IBV_WC_GENERAL_ERR) << s;
  }
  EXPECT_EQ(wc_status_of(IBV_WC_MW_BIND_ERR), WcStatus::kIBV_WC_MW_BIND_ERR);
  EXPECT_EQ(wc_status_of(IBV_WC_REM_ACCESS_ERR), WcStatus::kIBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(wc_status_of(IBV_WC_RNR_RETRY_EXC_ERR), WcStatus::kIBV_WC_RNR_RETRY_EXC_ERR);
}

TEST(Mapping, SendQueueWcOpcodesHaveTheirNames) {
  EXPECT_EQ(wc_opcode_of(IBV_WC_SEND), WcOpcode::kIBV_WC_SEND);
  EXPECT_EQ(wc_opcode_of(IBV_WC_BIND_MW), WcOpcode::kIBV_WC_BIND_MW);
  EXPECT_EQ(wc_opcode_of(IBV_WC_LOCAL_INV), WcOpcode::kIBV_WC_LOCAL_INV);
  EXPECT_EQ(wc_opcode_of(IBV_WC_FETCH_ADD), WcOpcode::kIBV_WC_FETCH_ADD);
  EXPECT_EQ(wc_opcode_of(IBV_WC_RECV), WcOpcode::kNONE);  // a receive's
}

TEST(Mapping, AccessDropsWhatVerbsHasNoBitFor) {
  EXPECT_EQ(verbs_access(acc::LOCAL_READ | acc::REMOTE_READ, false), uint32_t{IBV_ACCESS_REMOTE_READ});
  EXPECT_EQ(verbs_access(acc::ZERO_BASED | acc::REMOTE_WRITE, false),
            uint32_t{IBV_ACCESS_ZERO_BASED | IBV_ACCESS_REMOTE_WRITE});
  EXPECT_EQ(verbs_access(acc::ZERO_BASED | acc::MW_BIND, true), uint32_t{IBV_ACCESS_MW_BIND});
}

TEST(Mapping, TransitionsCarryWhatTheKernelAsksFor) {
  using S = QpState;
  EXPECT_EQ(transition_attrs(S::kRESET, S::kINIT, qpt::RC), kInit);
  EXPECT_EQ(transition_attrs(S::kINIT, S::kRTR, qpt::RC), kConnect);
  EXPECT_EQ(transition_attrs(S::kINIT, S::kRTR, qpt::UD), kStateOnly);
  EXPECT_EQ(transition_attrs(S::kRTR, S::kRTS, qpt::UC), kSend);
  EXPECT_EQ(transition_attrs(S::kRTS, S::kSQD, qpt::RC), kStateOnly);
  EXPECT_EQ(transition_attrs(S::kRTS, S::kERR, qpt::RC), kStateOnly);
}

}  // namespace
}  // namespace mwc::verbs
