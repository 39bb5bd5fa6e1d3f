#include "cli/device_options.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace mwc::cli {
namespace {

// A trace's file name given for its name does what it says: the device
// matches the name without folder or extension.
TEST(DeviceOptions, InjectTakesATraceFileForItsName) {
  DeviceConfig d;
  d.inject = {"provider-crash:corpus/010_bind.mwt", "no-completion:020_send.mwb", "provider-crash:030_x"};
  std::ostringstream err;
  const DeviceTarget where{true, false, {"a/010_bind.mwt", "a/020_send.mwt", "a/030_x.mwb"}};
  ASSERT_TRUE(check_device_options("run", {}, where, d, err)) << err.str();
  EXPECT_EQ(d.inject, (std::vector<std::string>{"provider-crash:010_bind", "no-completion:020_send",
                                                "provider-crash:030_x"}));
}

// In the Soft-RoCE guest the traces are copies named NNNNN-NAME.
TEST(DeviceOptions, InjectMatchesTheGuestsCopies) {
  DeviceConfig d;
  d.inject = {"guest-panic:010_bind"};
  std::ostringstream err;
  EXPECT_TRUE(check_device_options("conform", {}, {true, true, {"corpus/00003-010_bind.mwt"}}, d, err)) << err.str();
  d.inject = {"guest-panic:"};
  EXPECT_FALSE(check_device_options("conform", {}, {true, true, {"corpus/00003-010_bind.mwt"}}, d, err));
  EXPECT_NE(err.str().find("give the trace after ':'"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace mwc::cli
