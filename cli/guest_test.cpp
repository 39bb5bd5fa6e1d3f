// What the host says before it boots the Soft-RoCE VM: backends beside
// the VM's that do not exist, or cannot run in it, are refused here, with
// no boot (each test would boot a VM, and fail its assertions, without).
#include "cli/guest.hpp"

#include <sstream>

#include <gtest/gtest.h>

#include "cli/test_app.hpp"

namespace mwc::cli {
namespace {

TEST(GuestConsole, WhatMwcheckSaidThereIsToldApartFromTheRest) {
  for (const char* said : {"mwcheck run: error: no such file", "corpus/00001-a.mwt:3:7: error: unknown op 'x'",
                           "t.mwt:12: mismatch under rxe: want OK, got EINVAL", "a:1:2: error: "})
    EXPECT_TRUE(guest_said(said)) << said;
  for (const char* other : {"", ":1:2: error: x", "a b:1:2: error: x", "a:1:2: warning: x", "a:1:: error: x",
                            "a::2: error: x", "a:1:2 error: x", "a:x:2: error: y", "a:12: mismatch",
                            "[    1.234] rdma_rxe: loaded", "mwcheck: note: nothing", "a:1:2: error:"})
    EXPECT_FALSE(guest_said(other)) << other;
  // A console line of any length, a blank or a colon in it or not, is
  // read in one pass (a regex's recursion overflowed the stack).
  const std::string blankless(1 << 20, 'a');
  EXPECT_FALSE(guest_said(blankless));
  EXPECT_TRUE(guest_said(blankless + ":1:2: error: x"));
  EXPECT_FALSE(guest_said(blankless + ":" + std::string(1 << 20, '7')));
}

TEST(GuestBackends, AProfileOrMutantBesideTheVmIsMadeHereFirst) {
  std::ostringstream err;
  EXPECT_TRUE(guest_backends_ok({"device:softroce", "profile:rxe+failed_bind=destroy"}, 0, {}, "diff", err));
  EXPECT_TRUE(guest_backends_ok({"mutant:stale_rkey", "device:softroce:6.12"}, 1, {}, "diff", err));
  // The same VM twice: rxe0 against itself.
  EXPECT_TRUE(guest_backends_ok({"device:softroce", "device:softroce"}, 0, {}, "diff", err));
  EXPECT_EQ(err.str(), "");
  EXPECT_FALSE(guest_backends_ok({"device:softroce", "profile:nonexistent"}, 0, {}, "diff", err));
  EXPECT_EQ(err.str(), "mwcheck diff: error: unknown profile 'nonexistent' (profiles: ibta, verbs, det, rxe, mlx5)\n");
}

TEST(GuestBackends, AnotherDeviceBesideTheVmIsRefused) {
  for (const std::string other : {"device:mlx5_0", "device:softroce:6.12"}) {
    std::ostringstream err;
    EXPECT_FALSE(guest_backends_ok({"device:softroce", other}, 0, {}, "fuzz", err));
    EXPECT_EQ(err.str(), "mwcheck fuzz: error: '" + other +
                             "' cannot run beside 'device:softroce': the Soft-RoCE VM holds its rxe0 alone "
                             "(compare it with a profile or a mutant)\n");
  }
}

TEST(GuestBackends, DiffAndFuzzSayABackendThatDoesNotExistWithNoBoot) {
  const std::string trace = test::write_temp("guest_backends.mwt", "alloc_pd p0\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", "-a", "device:softroce", "-a", "profile:nonexistent", trace},
        {"fuzz", "-a", "profile:nonexistent", "-a", "device:softroce", "--runs", "1"}}) {
    const Ran r = mwcheck(args);
    EXPECT_EQ(r.status, kExitBadInput) << args[0];
    EXPECT_EQ(r.err, "mwcheck " + args[0] +
                         ": error: unknown profile 'nonexistent' (profiles: ibta, verbs, det, rxe, mlx5)\n");
    EXPECT_EQ(r.out, "") << args[0];
  }
}

}  // namespace
}  // namespace mwc::cli
