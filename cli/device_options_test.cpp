#include "cli/device_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/guest.hpp"
#include "cli/test_app.hpp"
#include "refmodel/mutant.hpp"

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

namespace mwc::cli {
namespace {

// --port and --gid-index: in range, only with a device, port 1 in the VM.
TEST(DeviceOptions, PortAndGidIndexAreCheckedBeforeAnythingRuns) {
  const std::string trace = std::string(std::getenv("MWCHECK_SOURCE_DIR")) + "/corpus/conformance/010_bind_type1_basic.mwt";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--port", "0", "--device", "rxe0", trace},
        {"run", "--port", "256", "--device", "rxe0", trace},
        {"run", "--gid-index", "-1", "--device", "rxe0", trace},
        {"run", "--gid-index", "x", "--device", "rxe0", trace},
        {"run", "--port", "2", trace},
        {"diff", "--gid-index", "3", "-a", "verbs", "-a", "rxe", trace},
        {"run", "--port", "2", "--device", "softroce", trace}}) {
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, 2) << args[1] << " " << args[2];
    EXPECT_NE(r.err.find(args[1] == "--port" ? "port" : "gid-index"), std::string::npos) << r.err;
  }
  EXPECT_NE(mwcheck({"run", "--port", "2", trace}).err.find("is for a device"), std::string::npos);
  EXPECT_NE(mwcheck({"run", "--port", "2", "--device", "softroce", trace}).err.find("one port"), std::string::npos);
  // The guest is told the GID index (its rxe0 has several GIDs).
  DeviceConfig d;
  d.gid_index = 1;
  const auto a = device_args(d);
  EXPECT_NE(std::find(a.begin(), a.end(), "--gid-index"), a.end());
  EXPECT_EQ(std::find(a.begin(), a.end(), "--port"), a.end());
}

TEST(ListVerbs, MutantsComeFromTheTableAndDevicesNeverFail) {
  const Ran m = mwcheck({"mutants"});
  EXPECT_EQ(m.status, 0);
  for (const auto& d : mutant_descs()) EXPECT_NE(m.out.find(std::string(d.name)), std::string::npos) << d.name;
  const Ran d = mwcheck({"devices"});
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_NE(d.out.find("softroce:PATH.deb"), std::string::npos) << d.out;
  EXPECT_EQ(mwcheck({"devices", "--json"}).status, 0);
}

}  // namespace
}  // namespace mwc::cli
