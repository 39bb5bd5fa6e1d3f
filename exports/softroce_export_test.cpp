// Exports of findings on rxe, each run in the Soft-RoCE guest: the C
// program compiled on this machine, the pyverbs test with python3 in the
// guest. Each must say that the finding reproduces, and a trace rxe gets
// right that it does not. Label: softroce (boots the VM for each of two
// traces' exports, for the corpus, then once for every finding's exports,
// again after each that kills the guest kernel).
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "adapters/softroce/test_command.hpp"

namespace fs = std::filesystem;

namespace {

using mwc::softroce::testing::kCorpus;
using mwc::softroce::testing::mwcheck;

// Exports op `op` (counted from 1) of a corpus trace and runs the exports in the guest.
// Returns the output.
std::string export_and_run(const std::string& trace, int op, const std::string& extra = "") {
  const fs::path dir = fs::temp_directory_path() / "mwcheck-export-softroce" / trace;
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());  // mwcheck makes only the last folder
  std::string out;
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = mwcheck("export " + kCorpus + trace + ".mwt --op " + std::to_string(op) + " --id F-" + trace +
                             " -o " + dir.string() + " --device softroce" + extra,
                         out);
  std::printf("%s: %.1f s\n", trace.c_str(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  EXPECT_EQ(rc, 0) << out;
  return out;
}

bool has(const std::string& out, const std::string& s) { return out.find(s) != std::string::npos; }

TEST(ExportSoftRoce, TypeTwoWindowBoundOverAnotherPdsMrByWorkRequest) {
  // rxe completes IBV_WR_BIND_MW of a PD 0 window over a PD 1 MR: the
  // specification refuses it (IBV_WC_MW_BIND_ERR).
  const std::string out = export_and_run("014_bind_pd_mismatch", 13);
  const std::string dir = (fs::temp_directory_path() / "mwcheck-export-softroce" / "014_bind_pd_mismatch").string();
  EXPECT_TRUE(has(out, "EXPORT-RUN " + dir + "/repro: exit status 1")) << out;
  EXPECT_TRUE(has(out, "F-014_bind_pd_mismatch: REPRODUCED at op 13\n")) << out;
  EXPECT_TRUE(has(out, "AssertionError: F-014_bind_pd_mismatch: REPRODUCED at op 13 (wr_bind_mw")) << out;
  EXPECT_TRUE(has(out, "EXPORT-RUN " + dir + "/test_repro.py: exit status 1")) << out;
  EXPECT_FALSE(has(out, "OTHER PATH")) << out;
}

TEST(ExportSoftRoce, ATypeTwoWindowBindsAgainAfterItsInvalidation) {
  // The C program keeps the window's rkey field (ibv_mw::rkey) current, as
  // a consumer does: rxe names the window by it in the next bind, so a
  // stale one would fail the second bind (IBV_WC_MW_BIND_ERR) and show a
  // bug that is not the driver's. pyverbs cannot set MW.rkey: its test
  // skips the second bind, saying so.
  const std::string out = export_and_run("030_type2_bind_basic", 14);
  const std::string dir = (fs::temp_directory_path() / "mwcheck-export-softroce" / "030_type2_bind_basic").string();
  EXPECT_TRUE(has(out, "F-030_type2_bind_basic: NOT REPRODUCED: every op as expected")) << out;
  EXPECT_TRUE(has(out, "EXPORT-RUN " + dir + "/repro: exit status 0")) << out;
  EXPECT_TRUE(has(out, "skipped \"pyverbs cannot keep a window's rkey field current")) << out;
  EXPECT_TRUE(has(out, "EXPORT-RUN " + dir + "/test_repro.py: exit status 0")) << out;
}

// Returns what an exported program's run `mine` printed as op n's outcome
// ("seen:" in the op's block, without a note or a mark), or "".
std::string seen_at(const std::string& mine, size_t n) {
  const size_t op = mine.find("[" + std::to_string(n) + "] ");
  const size_t at = op == std::string::npos ? op : mine.find("seen:", op);
  if (at == std::string::npos) return "";
  const size_t from = mine.find_first_not_of(' ', at + 5);
  const std::string line = mine.substr(from, mine.find('\n', from) - from);
  return line.substr(0, std::min(line.find(" ("), line.find("   <--")));
}

// How an exported program (its host path) of finding `id` (shown at op
// `n`, counted from 1, where the device gave `device`) ended in the guest,
// in `out` of `mwcheck export --device`: "reproduced" (shown at that op,
// with the device's outcome, or by a crash there), "skipped: WHY" (pyverbs
// cannot say it), or what it printed instead.
std::string verdict_of(const std::string& out, const std::string& program, const std::string& id, size_t n,
                       const std::string& device) {
  const std::string at = " at op " + std::to_string(n);
  if (has(out, program + ": CRASH" + at + ": the guest kernel died")) return "reproduced";  // a kernel crash
  const size_t start = out.find("EXPORT-RUN " + program + ": start");
  if (start == std::string::npos) return "did not run";
  // Up to the line that says how it ended.
  const size_t last = out.find("EXPORT-RUN " + program + ": ", start + 1);
  const std::string mine = out.substr(start, last == std::string::npos ? std::string::npos : out.find('\n', last) - start);
  // The program does what mwcheck's session did: the same outcome, not
  // another divergence at the same op.
  if (has(mine, id + ": REPRODUCED" + at)) {
    const std::string seen = seen_at(mine, n);
    return seen == device ? "reproduced" : "reproduced with " + seen + " where the device gave " + device;
  }
  // A crash of the process in the op itself, the last one it started.
  if (has(mine, "died of signal 11") && mine.rfind("\n[") != std::string::npos &&
      mine.compare(mine.rfind("\n[") + 2, std::to_string(n).size() + 1, std::to_string(n) + "]") == 0)
    return "reproduced";
  // unittest prints the reason as Python's repr: in ' or, holding one, in ".
  for (const char q : {'\'', '"'})
    if (const size_t k = mine.find(std::string("skipped ") + q); k != std::string::npos)
      return "skipped: " + mine.substr(k + 9, mine.find(q, k + 9) - k - 9);
  return mine;
}

TEST(ExportSoftRoce, EveryFindingOfTheCorpusReproducesFromItsExports) {
  // The main job's run (the corpus on rxe, findings shrunk on the device),
  // then every finding exported from its report and run in the guest, all
  // in one command: the C program and the pyverbs test must both
  // reproduce each.
  const fs::path dir = fs::temp_directory_path() / "mwcheck-export-softroce" / "corpus";
  fs::remove_all(dir);
  fs::create_directories(dir.parent_path());  // mwcheck makes only the last folder
  std::string out;
  // Time enough to show every reproducer 1-minimal on a loaded machine too
  // (the main job's default is 150 s; about 140 s are used on a quiet one,
  // and 400 s once left the kernel crash, shrunk last at a boot a candidate,
  // no turn). Shrinking ends when all are 1-minimal: a quiet machine takes
  // no longer for it.
  ASSERT_EQ(mwcheck("conform --device softroce --shrink-seconds 800 --report " + dir.string(), out), 1)
      << out;  // findings
  std::ifstream in(dir / "report.json");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  // rxe's ibv_destroy_qp of a QP with a bound type 2 window waits ~50 s in
  // the kernel, then WARNs: the guest's console shows no WARNING, the
  // kernel's log has it, and the hang's finding says so.
  bool warned = false;
  for (const auto& f : j["findings"])
    if (f["severity"] == "hang" && f["op"] == "destroy_qp") {
      const std::string k = f.value("kernel", "");
      EXPECT_NE(k.find("WARNING: at drivers/infiniband/sw/rxe/rxe_pool.c:"), std::string::npos) << k;
      EXPECT_NE(k.find("\n rxe_destroy_qp+"), std::string::npos) << k;
      warned = true;
    }
  EXPECT_TRUE(warned) << out;
  const fs::path exports = dir / "exports";
  std::string ran;
  const auto t0 = std::chrono::steady_clock::now();
  // 1 when one killed the guest kernel, else 0: what each printed tells the rest.
  bool kernel_dies = false;
  for (const auto& f : j["findings"])
    kernel_dies |= f["severity"] == "crash" && f["signature"].get<std::string>().starts_with("kernel");
  EXPECT_EQ(mwcheck("export --from " + dir.string() + " -o " + exports.string() + " --device softroce", ran),
            kernel_dies ? 1 : 0)
      << ran;
  std::printf("every finding's exports: %.1f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  size_t checked = 0;
  for (const auto& f : j["findings"]) {
    if (f["severity"] == "unsupported") continue;
    const std::string id = f["id"];
    const size_t n = f["ops"];
    EXPECT_TRUE(f["minimal"].get<bool>()) << id << " not shown 1-minimal: " << f.value("shrink_note", "");
    const std::string device = f["device_outcome"];
    const std::string c = verdict_of(ran, (exports / id / "repro").string(), id, n, device);
    EXPECT_EQ(c, "reproduced") << id << " (" << f["summary"] << "):\n" << ran;
    // What pyverbs cannot say (a bind without an MR, a bind work request's
    // own key, a window's moved key) its test names and skips; the C
    // program has it.
    const std::string py = verdict_of(ran, (exports / id / "test_repro.py").string(), id, n, device);
    if (py != "reproduced") {
      EXPECT_TRUE(py.starts_with("skipped: pyverbs cannot bind a window without an MR") ||
                  py.starts_with("skipped: pyverbs cannot choose a bind work request's key") ||
                  py.starts_with("skipped: pyverbs cannot keep a window's rkey field current"))
          << id << ": " << py << "\n" << ran;
    }
    std::printf("%s %-11s %zu ops: C %s, pyverbs %s\n", id.c_str(), f["severity"].get<std::string>().c_str(), n,
                c.size() < 80 ? c.c_str() : "(other: see above)", py.c_str());
    ++checked;
  }
  EXPECT_GE(checked, 8u) << out;  // rxe on 6.1 has ten
}

}  // namespace
