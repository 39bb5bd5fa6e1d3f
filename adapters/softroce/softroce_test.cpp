// Boots the Soft-RoCE VM (TCG) and checks real rxe outcomes, and that a
// provider crash, a completion that never arrives and a guest kernel panic
// each end as a reported outcome while the run goes on. Label: softroce.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

const std::string kCorpus = std::string(MWCHECK_SOURCE_DIR) + "/corpus/conformance/";

// Runs mwcheck with `args`; returns its exit status, its output in `out`.
int mwcheck(const std::string& args, std::string& out) {
  FILE* p = popen((std::string(MWCHECK_BIN) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(SoftRoce, RxeGivesTheModelsOutcomesOnTracesItImplements) {
  // Traces on which rxe and the rxe profile agree op by op, outcomes and
  // keys included: diff exits 0 only if every op's outcome is the same.
  std::string files;
  for (const char* t : {"010_bind_type1_basic", "019_bind_send_ordered", "033_type2_zero_based",
                        "035_type2_local_inv", "053_rdma_reg_msgs_read", "109_knob_remote_range"})
    files += " " + kCorpus + t + ".mwt";
  std::string out;
  EXPECT_EQ(mwcheck("diff --against device:softroce --against profile:rxe" + files, out), 0) << out;
  EXPECT_NE(out.find("diff: 0 of 6 traces diverge"), std::string::npos) << out;
  EXPECT_NE(out.find("softroce ("), std::string::npos) << out;  // the guest's kernel and timings
}

TEST(SoftRoce, CrashesAndHangsAreOutcomesAndTheRunFinishes) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck-softroce-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "corpus");
  for (const char* t : {"001_resources_basic", "010_bind_type1_basic", "019_bind_send_ordered",
                        "035_type2_local_inv"})
    fs::copy_file(kCorpus + t + ".mwt", dir / "corpus" / (std::string(t) + ".mwt"));
  std::string out;
  const int rc = mwcheck("conform --device softroce --corpus " + (dir / "corpus").string() +
                             " --report " + (dir / "report").string() +
                             " --inject provider-crash:035_type2_local_inv"
                             " --inject no-completion:019_bind_send_ordered"
                             " --inject guest-panic:010_bind_type1_basic --op-timeout 1500",
                         out);
  EXPECT_EQ(rc, 1) << out;  // divergences found, run complete
  std::ifstream in(dir / "report" / "report.json");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  std::map<std::string, nlohmann::json> by;
  for (const auto& t : j["devices"][0]["traces"]) by[t["trace"]] = t;
  ASSERT_EQ(by.size(), 4u) << out;
  EXPECT_EQ(by["001_resources_basic.mwt"]["verdict"], "match") << out;
  EXPECT_EQ(by["035_type2_local_inv.mwt"]["verdict"], "crash") << out;
  EXPECT_NE(by["035_type2_local_inv.mwt"]["note"].get<std::string>().find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(by["019_bind_send_ordered.mwt"]["verdict"], "timeout") << out;
  EXPECT_EQ(by["010_bind_type1_basic.mwt"]["verdict"], "crash") << out;
  EXPECT_NE(by["010_bind_type1_basic.mwt"]["note"].get<std::string>().find("Kernel panic"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "report" / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "report" / "junit.xml"));
}

}  // namespace
