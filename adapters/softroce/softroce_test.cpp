// Boots the Soft-RoCE VM (TCG) and checks real rxe outcomes, and that a
// provider crash, a completion that never arrives and a guest kernel panic
// each end as a reported outcome while the run goes on. Label: softroce.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "adapters/softroce/test_command.hpp"
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

using mwc::softroce::testing::kCorpus;
using mwc::softroce::testing::mwcheck;

TEST(SoftRoce, RxeGivesTheModelsOutcomesOnTracesItImplements) {
  // Traces on which rxe and the rxe profile agree op by op, outcomes and
  // keys included: diff exits 0 only if every op's outcome is the same.
  // 030, 031 and 036 bind a type 2 window again after invalidating it: rxe
  // takes the window's rkey field (ibv_mw::rkey) as the window's current
  // key, which the harness keeps as a consumer does. 127: Linux 6.1's rxe
  // completes a request that fails at the requester with its own status.
  std::string files;
  for (const char* t : {"010_bind_type1_basic", "019_bind_send_ordered", "030_type2_bind_basic",
                        "031_type2_key_wrap", "033_type2_zero_based", "035_type2_local_inv",
                        "036_type2_send_inv", "053_rdma_reg_msgs_read", "109_knob_remote_range",
                        "124_zero_length_mr", "125_zero_based_mr_page", "126_reset_to_err",
                        "127_failed_request_status"})
    files += " " + kCorpus + t + ".mwt";
  std::string out;
  EXPECT_EQ(mwcheck("diff --against device:softroce --against profile:rxe" + files, out), 0) << out;
  EXPECT_NE(out.find("diff: 0 of 13 traces diverge"), std::string::npos) << out;
  EXPECT_NE(out.find("softroce ("), std::string::npos) << out;  // the guest's kernel and timings
}

TEST(SoftRoce, Linux612RxeGivesItsReleasesOutcomes) {
  // Linux 6.12's rxe as rxe@6.12 describes it, op by op: the binding QP's
  // PD checked for type 1 windows too (115), and a request that fails at
  // the requester flushed with the rest (127), where the rxe profile (6.1)
  // diverges; 010 as before.
  std::string files;
  for (const char* t : {"010_bind_type1_basic", "115_knob_bind_qp_pd", "127_failed_request_status"})
    files += " " + kCorpus + t + ".mwt";
  std::string out;
  EXPECT_EQ(mwcheck("diff --against device:softroce:6.12 --against profile:rxe@6.12" + files, out), 0) << out;
  EXPECT_NE(out.find("diff: 0 of 3 traces diverge"), std::string::npos) << out;
  EXPECT_NE(out.find("softroce (6.12."), std::string::npos) << out;  // the guest's kernel
  EXPECT_EQ(mwcheck("diff --against device:softroce:6.12 --against profile:rxe" + files, out), 1) << out;
  EXPECT_NE(out.find("diff: 2 of 3 traces diverge"), std::string::npos) << out;
}

TEST(SoftRoce, ARegistrationTooBigToPinIsAHarnessLimitNotACrash) {
  // Pinning 4 GiB in a 1 GiB guest would call the OOM killer (SIGKILL): a
  // limit of the machine, which a finding must not blame on the device.
  const fs::path trace = fs::temp_directory_path() / "mwcheck-softroce-pin.mwt";
  std::ofstream(trace) << "buf b0 len=0x100000000\nalloc_pd p0\n"
                          "rdma_reg_read m0 pd=p0 addr=b0+1 len=4294967295\n"
                          "reg_mr m1 pd=p0 addr=b0 len=4096\n";
  std::string out;
  EXPECT_EQ(mwcheck("run --device softroce " + trace.string(), out), 0) << out;
  EXPECT_NE(out.find("len=4294967295 => UNSUPPORTED"), std::string::npos) << out;
  EXPECT_NE(out.find("reg_mr m1 pd=p0 addr=b0 len=4096 => OK"), std::string::npos) << out;
  fs::remove(trace);
}

TEST(SoftRoce, StandardInputGoesIntoTheVmAndEveryFileKeepsItsName) {
  // `run --check --device softroce A - B`: standard input is copied into
  // the VM as a file of its own; what comes back, and what mwcheck says on
  // the guest's standard error (a mismatch), names each file as the host
  // does (-, B), not by the guest's copy. (A trace that does not parse
  // never reaches the guest: InputPaths.ARunInTheVmSaysWhereATraceDoesNotParseBeforeAnyBoot.)
  const fs::path wrong = fs::temp_directory_path() / "mwcheck-softroce-wrong.mwt";
  std::ofstream(wrong) << "alloc_pd p0 => EINVAL\n";
  std::string out;
  EXPECT_EQ(mwcheck("run --check --device softroce " + kCorpus + "010_bind_type1_basic.mwt - " + wrong.string() +
                        " < " + kCorpus + "001_resources_basic.mwt",
                    out),
            1)
      << out;
  EXPECT_NE(out.find("# == " + kCorpus + "010_bind_type1_basic.mwt ==\n"), std::string::npos) << out;
  EXPECT_NE(out.find("# == - ==\n# 001_resources_basic: "), std::string::npos) << out;
  EXPECT_NE(out.find(wrong.string() + ":1: mismatch under device:rxe0: alloc_pd p0 => OK, expected EINVAL"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("stdin.mwt"), std::string::npos) << out;
  EXPECT_EQ(out.find("corpus/0000"), std::string::npos) << out;
  fs::remove(wrong);
}

TEST(SoftRoce, AKernelVersionDebianDoesNotPackageIsSaidByName) {
  // The image builder said nothing when no package matched: its search
  // for the newest one failed, under pipefail, before it could say so.
  std::string out;
  EXPECT_EQ(mwcheck("run --device softroce:9.9.9 " + kCorpus + "001_resources_basic.mwt", out), 2) << out;
  EXPECT_NE(out.find("softroce: no Debian kernel package matches '9.9.9'\n"), std::string::npos) << out;
  EXPECT_NE(out.find("mwcheck: error: Soft-RoCE VM: building the Soft-RoCE image failed"), std::string::npos)
      << out;
  // A second device's, before the first device's minutes.
  EXPECT_EQ(mwcheck("conform --device softroce --device softroce:9.9.9", out), 2) << out;
  EXPECT_NE(out.find("softroce: no Debian kernel package matches '9.9.9'\n"
                     "mwcheck conform: error: device:softroce:9.9.9: building the Soft-RoCE image failed\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("booting"), std::string::npos) << out;
}

TEST(SoftRoce, AnEmulatorThatEndsAtOnceIsAnErrorNotACrash) {
  // A guest that printed nothing (qemu that could not start it; a boot
  // silent until the harness gave up) is booted again, then reported: it
  // once aborted the harness, its empty console's account out of range.
  const fs::path bin = fs::temp_directory_path() / "mwcheck-softroce-noemulator";
  fs::create_directories(bin);
  std::ofstream(bin / "qemu-system-x86_64") << "#!/bin/sh\nexit 1\n";
  fs::permissions(bin / "qemu-system-x86_64", fs::perms::owner_all);
  const std::string path = std::getenv("PATH");
  setenv("PATH", (bin.string() + ":" + path).c_str(), 1);
  std::string out;
  const int rc = mwcheck("run --device softroce " + kCorpus + "001_resources_basic.mwt", out);
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("mwcheck: error: Soft-RoCE VM: the guest did not boot (3 tries); "
                     "qemu-system-x86_64 ended with nothing on its console"),
            std::string::npos)
      << out;
  fs::remove_all(bin);
}

// Runs side by side on one cache (two CI jobs, a test beside scripts/run)
// build each part once: the others wait for it instead of copying over the
// file it reads. Whole parts only, under their names; none half copied.
TEST(SoftRoce, ImagesBuiltSideBySideOnOneCacheAreBuiltOnce) {
  const fs::path cache = fs::temp_directory_path() / "mwcheck-softroce-cache";
  fs::remove_all(cache);
  fs::create_directories(cache / "softroce" / "debs");
  // The kernel packages already fetched, linked in (else fetched again).
  const char* c = std::getenv("MWCHECK_CACHE");
  const char* x = std::getenv("XDG_CACHE_HOME");
  const fs::path have = (c ? fs::path(c) : x ? fs::path(x) / "mwcheck" : fs::path(std::getenv("HOME")) / ".cache/mwcheck") /
                        "softroce" / "debs";
  std::error_code ec;
  for (fs::directory_iterator it(have, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path to = cache / "softroce" / "debs" / it->path().filename();
    if (std::error_code e; fs::create_hard_link(it->path(), to, e), e) fs::copy_file(it->path(), to);
  }
  const std::string script = std::string(MWCHECK_SOURCE_DIR) + "/adapters/softroce/build-image";
  const std::string cmd = "for i in 1 2 3; do MWCHECK_CACHE='" + cache.string() + "' '" + script + "' '' '" +
                          MWCHECK_BIN + "' > '" + cache.string() + "'/out$i 2> '" + cache.string() +
                          "'/err$i & done; wait";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string out = slurp(cache / "out1"), err = slurp(cache / "err1") + slurp(cache / "err2") + slurp(cache / "err3");
  EXPECT_EQ(slurp(cache / "out2"), out);
  EXPECT_EQ(slurp(cache / "out3"), out);
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = err.find(what); at != std::string::npos; at = err.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("softroce: unpacking "), 1u) << err;
  EXPECT_EQ(count("softroce: packing mwcheck "), 1u) << err;
  std::istringstream parts(out);
  size_t n = 0;
  for (std::string part; std::getline(parts, part); ++n) EXPECT_GT(fs::file_size(part), 0u) << part;
  EXPECT_EQ(n, 3u) << out;
  for (const auto& e : fs::recursive_directory_iterator(cache))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  fs::remove_all(cache);
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
                             " --inject guest-panic:010_bind_type1_basic --op-timeout 1500"
                             " --shrink-seconds 0",
                         out);
  EXPECT_EQ(rc, 1) << out;  // findings, run complete
  std::ifstream in(dir / "report" / "report.json");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  std::map<std::string, nlohmann::json> by;
  for (const auto& t : j["devices"][0]["traces"]) by[t["trace"]] = t;
  std::map<std::string, std::string> severity;  // of each finding, by id
  for (const auto& f : j["findings"]) severity[f["id"]] = f["severity"];
  const auto severity_of = [&](const char* trace) {
    return by[trace].contains("finding") ? severity[by[trace]["finding"]] : "none";
  };
  ASSERT_EQ(by.size(), 4u) << out;
  EXPECT_EQ(by["001_resources_basic.mwt"]["verdict"], "match") << out;
  EXPECT_EQ(severity_of("035_type2_local_inv.mwt"), "crash") << out;
  EXPECT_NE(by["035_type2_local_inv.mwt"]["note"].get<std::string>().find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(severity_of("019_bind_send_ordered.mwt"), "hang") << out;
  EXPECT_EQ(severity_of("010_bind_type1_basic.mwt"), "crash") << out;
  EXPECT_NE(by["010_bind_type1_basic.mwt"]["note"].get<std::string>().find("Kernel panic"),
            std::string::npos);
  // The panic comes at once in the first op: the crash is put in it. (A
  // lost console line would not show here, as an op before the first is
  // read as the first; the line is drained so that a crash later in a
  // trace is not put in an earlier op.)
  EXPECT_EQ(by["010_bind_type1_basic.mwt"]["op"], 1) << out;
  EXPECT_TRUE(fs::exists(dir / "report" / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "report" / "junit.xml"));
}

TEST(SoftRoce, ARecordedProgramReplaysWithTheOutcomesItSaw) {
  // An unmodified libibverbs program (record/example/mw_app.c) runs in the
  // guest with the recorder preloaded; the trace comes back to the host.
  const fs::path dir = fs::temp_directory_path() / "mwcheck-record-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string trace = (dir / "mw_app.mwt").string();
  std::string out;
  ASSERT_EQ(mwcheck("record --device softroce -o " + trace + " --log " + (dir / "mw_app.log").string() +
                        " -- " + MW_APP_BIN,
                    out),
            0)
      << out;
  EXPECT_TRUE(fs::exists(dir / "mw_app.log")) << out;
  std::ifstream in(trace);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // What the program printed it saw is what the trace expects: its seven
  // completions (six successes, the read through the invalidated window
  // refused) and every verb's success.
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size()) ++n;
    return n;
  };
  EXPECT_EQ(count(out, "completion success"), 6u) << out;
  EXPECT_EQ(count(out, "completion remote access error"), 1u) << out;
  EXPECT_EQ(count(text, "=> IBV_WC_SUCCESS"), 6u) << text;
  EXPECT_EQ(count(text, "peer_read q0 rkey=w1 addr=b1+4096 => IBV_WC_REM_ACCESS_ERR"), 1u) << text;
  EXPECT_EQ(count(text, "=> OK"), 25u) << text;
  EXPECT_NE(out.find("recorded 32 ops (32 with the outcome the program saw)"), std::string::npos) << out;
  // The same program posting through an extended QP's ibv_wr_* builders
  // records the same trace (the header names the command line).
  out.clear();
  const std::string ex = (dir / "mw_app_ex.mwt").string();
  ASSERT_EQ(mwcheck("record --device softroce -o " + ex + " -- " + MW_APP_BIN + " --ex", out), 0) << out;
  std::ifstream ex_in(ex);
  const std::string ex_text((std::istreambuf_iterator<char>(ex_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(ex_text.substr(ex_text.find('\n')), text.substr(text.find('\n'))) << ex_text;
  // Replayed on the model (run and the binary replay engine) and on rxe,
  // every op gives what the program saw.
  out.clear();
  EXPECT_EQ(mwcheck("run --check --profile rxe " + trace, out), 0) << out;
  const std::string binary = (dir / "mw_app.mwb").string();
  EXPECT_EQ(mwcheck("convert " + trace + " " + binary, out), 0) << out;
  out.clear();
  EXPECT_EQ(mwcheck("replay --profile rxe " + binary, out), 0) << out;
  EXPECT_NE(out.find("32 ops, 32 checked, 0 mismatches"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(mwcheck("run --check --device softroce " + trace, out), 0) << out;
}

// Records `sh -c 'SCRIPT'` in the VM (into a folder of its own, removed
// after); returns record's exit status, with what it printed in `out`.
int record_in_vm(const std::string& script, std::string& out) {
  const fs::path dir = fs::temp_directory_path() / ("mwcheck-record-sh-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const int rc = mwcheck("record --device softroce -o " + (dir / "sh.mwt").string() + " -- sh -c '" + script + "'", out);
  fs::remove_all(dir);
  return rc;
}

TEST(SoftRoce, AGuestThatPrintsMegabytesIsReadToTheEndInOrder) {
  // The guest's console is a file the host reads as it grows, and gives
  // the blocks it read back to the file system every 4 MiB
  // (free_read_blocks); the recorder's liveness marker shares it with the
  // program's standard error, in one write a line (mark_line: in parts, a
  // program's line and the marker tore each other, and both were lost,
  // about one line in 100,000 here). A program printing 12.5 MB there
  // comes through whole, line by line in order, and the run ends as the
  // program does (it calls no verb: exit status 1, saying so).
  std::string out;
  EXPECT_EQ(record_in_vm("seq 1000000 1500000 | sed s/$/-0123456789abcdef/ >&2; echo chatty-done >&2", out), 1)
      << out.substr(0, 4096);
  size_t lines = 0, next = 1000000, at = 0;
  for (size_t nl; (nl = out.find("-0123456789abcdef\n", at)) != std::string::npos; at = nl + 1, ++lines) {
    const size_t start = out.rfind('\n', nl);
    const size_t n = std::strtoul(out.c_str() + (start == std::string::npos ? 0 : start + 1), nullptr, 10);
    if (n != next++) {  // the first line out of order says enough
      ADD_FAILURE() << "line " << lines << " is " << out.substr(start == std::string::npos ? 0 : start + 1, 200);
      break;
    }
  }
  EXPECT_EQ(lines, 500001u);
  EXPECT_NE(out.find("chatty-done\n", at), std::string::npos) << out.substr(at, 4096);
  EXPECT_NE(out.find("exited with status 0, and called no verb the recorder saw", at), std::string::npos)
      << out.substr(at, 4096);
}

TEST(SoftRoce, AProgramsUnendedLineAndTheMarkerAfterItAreTakenApart) {
  // A program whose standard error (the console) stops without a newline
  // has the next marker written after its bytes, on the same line (here
  // the recorder's liveness marker, every 10 s while it waits, and once
  // as the program ends). The host takes the two apart (marker_inside):
  // the program's bytes are shown as a line of their own and the marker
  // is read, never shown (it was shown joined, "torn-startMWCHECK-ALIVE",
  // and not read), and the recorder's own message begins a line.
  std::string out;
  EXPECT_EQ(record_in_vm("printf torn-start >&2; sleep 22; printf torn-end >&2", out), 1) << out;
  EXPECT_NE(out.find("torn-start\ntorn-end\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("MWCHECK-"), std::string::npos) << out;
  EXPECT_NE(out.find("torn-end\nmwcheck: sh -c printf torn-start >&2; sleep 22; printf torn-end >&2 exited with "
                     "status 0, and called no verb the recorder saw"),
            std::string::npos)
      << out;
}

}  // namespace
