#include "exports/export.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "adapters/device_settings.hpp"
#include "exports/literal.hpp"
#include "refmodel/model.hpp"
#include "refmodel/test_util.hpp"

namespace mwc::exports {
namespace {

namespace fs = std::filesystem;

// This process's folder under the build's tmp/ (TMPDIR): tests run at
// once (ctest -j) never share a file.
fs::path scratch_root() {
  const char* tmp = std::getenv("TMPDIR");
  return fs::path(tmp ? tmp : "/tmp") / ("exports_test." + std::to_string(getpid()));
}

// A folder of this test's own in it.
fs::path scratch(const std::string& name) {
  const fs::path p = scratch_root() / name;
  fs::create_directories(p);
  return p;
}

// Removes the process's folder after its tests, unless one failed (its
// files are then left to look at): each run would leave one behind.
class RemoveScratch : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    if (::testing::UnitTest::GetInstance()->Passed()) fs::remove_all(scratch_root(), ec);
  }
};
[[maybe_unused]] const ::testing::Environment* const kRemoveScratch =
    ::testing::AddGlobalTestEnvironment(new RemoveScratch);

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// Runs a shell command; returns its exit status, its output in `out`.
int sh(const std::string& cmd, std::string* out = nullptr) {
  const std::string log = (scratch("log") / "out").string();
  const int rc = std::system((cmd + " >" + log + " 2>&1").c_str());
  if (out) *out = testing::read_file(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

// The reproducer of a trace whose finding shows at its last op, expected
// outcomes from the model under `verbs`.
Reproducer reproducer(const Trace& t, std::string id = "F-0badc0de") {
  Reproducer r;
  r.id = std::move(id);
  r.summary = "a test's reproducer";
  r.rule = "test.rule";
  r.source = "nowhere";
  r.trace = t;
  Model m(profile(ProfileId::verbs));
  m.reset(t.caps);
  for (const Op& op : t.ops) r.expected.push_back(m.step(op));
  r.op = t.ops.empty() ? 0 : t.ops.size() - 1;
  if (!r.expected.empty()) r.seen = r.expected.back();
  return r;
}

// A trace with one op of every kind in the op table, each field at its
// default and every handle 0.
Trace every_op() {
  Trace t;
  for (int c = 0; c < kOpCount; ++c) {
    Op op = default_op(static_cast<OpCode>(c));
    const OpDesc& d = op_desc(op.code);
    for (size_t f = 0; f < d.fields.size(); ++f)
      if (is_handle(d.fields[f].kind)) op.a[f].h = 0;
    t.ops.push_back(op);
  }
  return t;
}

constexpr const char* kCflags = "gcc -std=gnu11 -Wall -Wextra -Werror";

TEST(Exports, EveryOpOfTheTableHasACRuntimeFunction) {
  // Compiled and linked: an op without its runtime function does not link,
  // one whose function takes other fields does not compile.
  const fs::path dir = scratch("every_op");
  write(dir / "repro.c", to_c(reproducer(every_op())));
  std::string out;
  EXPECT_EQ(sh(std::string(kCflags) + " -o " + (dir / "repro").string() + " " + (dir / "repro.c").string() +
                   " -libverbs",
               &out),
            0)
      << out;
  for (int c = 0; c < kOpCount; ++c)
    EXPECT_NE(to_c(reproducer(every_op())).find("mwc_" + std::string(op_desc(static_cast<OpCode>(c)).name) + "(&rt"),
              std::string::npos);
}

TEST(Exports, TheCProgramRefusesASettingOutOfMwchecksRangeBeforeOpeningADevice) {
  // MWC_PORT, MWC_GID_INDEX and MWC_OP_TIMEOUT_MS pick what mwcheck's
  // --port, --gid-index and --op-timeout pick, in the same ranges
  // (device_settings.def); a bad value is a setup failure (exit 2) that
  // names it, on any machine, with or without a device.
  const fs::path dir = scratch("env");
  write(dir / "repro.c", to_c(reproducer(every_op())));
  const std::string bin = (dir / "repro").string();
  std::string out;
  ASSERT_EQ(sh(std::string(kCflags) + " -o " + bin + " " + (dir / "repro.c").string() + " -libverbs", &out), 0)
      << out;
  for (const DeviceSetting& d : kDeviceSettings) {
    const std::string range = "give a whole number from " + std::to_string(d.lo) + " to " + std::to_string(d.hi);
    for (const std::string& v : {std::to_string(d.lo - 1), std::to_string(d.hi + 1), std::to_string(d.lo) + "x",
                                std::string()}) {
      const std::string env = std::string(d.env) + "=" + v;
      EXPECT_EQ(sh(env + " " + bin, &out), 2) << env << ": " << out;
      EXPECT_NE(out.find("setup: " + env + ": " + range), std::string::npos) << env << ": " << out;
    }
  }
  // The table as the test knows mwcheck's options: 8-bit port and GID index.
  EXPECT_EQ(setting::port.hi, 255);
  EXPECT_EQ(setting::gid_index.hi, 255);
}

TEST(Exports, EveryOpOfTheTableHasAPythonRuntimeMethod) {
  const fs::path dir = scratch("every_op_py");
  write(dir / "test_repro.py", to_pyverbs(reproducer(every_op())));
  // The runtime class must define a method per op, taking the op's fields.
  std::string check =
      "import ast, sys\n"
      "tree = ast.parse(open(sys.argv[1]).read())\n"
      "rt = [c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == 'Runtime'][0]\n"
      "have = {f.name: len(f.args.args) - 1 for f in rt.body if isinstance(f, ast.FunctionDef)}\n"
      "want = dict(a.split(':') for a in sys.argv[2:])\n"
      "bad = [n for n, k in want.items() if have.get(n) != int(k)]\n"
      "print('missing or wrong:', bad)\n"
      "sys.exit(1 if bad else 0)\n";
  write(dir / "check.py", check);
  std::string args;
  for (int c = 0; c < kOpCount; ++c) {
    const OpDesc& d = op_desc(static_cast<OpCode>(c));
    args += " " + std::string(d.name) + ":" + std::to_string(d.fields.size());
  }
  std::string out;
  EXPECT_EQ(sh("python3 " + (dir / "check.py").string() + " " + (dir / "test_repro.py").string() + args, &out), 0)
      << out;
  EXPECT_EQ(sh("python3 -m py_compile " + (dir / "test_repro.py").string(), &out), 0) << out;
}

TEST(Exports, EveryCorpusTraceCompilesWarningFreeAndItsPythonIsValid) {
  const fs::path dir = scratch("corpus");
  std::string c_files, py_files;
  int n = 0;
  for (const auto& path : testing::corpus_files()) {
    const Reproducer r = reproducer(testing::parse_or_fail(testing::read_file(path)), path.stem().string());
    const fs::path c = dir / (path.stem().string() + ".c"), py = dir / ("test_" + path.stem().string() + ".py");
    write(c, to_c(r));
    write(py, to_pyverbs(r));
    c_files += " " + c.string();
    py_files += " " + py.string();
    ++n;
  }
  ASSERT_GT(n, 40);
  std::string out;
  // One compiler run per file (gcc takes many with -fsyntax-only).
  EXPECT_EQ(sh(std::string(kCflags) + " -fsyntax-only" + c_files, &out), 0) << out;
  EXPECT_EQ(sh("python3 -m py_compile" + py_files, &out), 0) << out;
}

TEST(Exports, LiteralsOfEveryFieldKind) {
  auto field = [](FieldKind k) { return FieldDesc{"f", k, FieldMode::Opt, 0, 0, ~uint64_t{0}}; };
  auto arg = [](uint64_t v, uint32_t h = kNoHandle, uint8_t tag = 0) { return Arg{v, h, tag}; };
  struct Case {
    FieldKind kind;
    Arg a;
    const char *c, *py;
  };
  const Case cases[] = {
      {FieldKind::Buf, arg(0, 2), "2", "2"},
      {FieldKind::Pd, arg(0, 0), "0", "0"},
      {FieldKind::Mr, arg(0, kNoHandle), "MWC_NONE", "None"},
      {FieldKind::Mw, arg(0, 7), "7", "7"},
      {FieldKind::Qp, arg(0, 1), "1", "1"},
      {FieldKind::U64, arg(4096), "4096", "4096"},
      {FieldKind::U64, arg(0xffffffffffffffffull), "0xffffffffffffffffull", "0xffffffffffffffff"},
      {FieldKind::Access, arg(acc::LOCAL_WRITE | acc::MW_BIND), "IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND",
       "e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_MW_BIND"},
      {FieldKind::Access, arg(acc::LOCAL_READ), "MWC_ACCESS_LOCAL_READ", "MWC_ACCESS_LOCAL_READ"},
      {FieldKind::Access, arg(0), "0", "0"},
      {FieldKind::SendFlags, arg(sendf::SIGNALED | sendf::FENCE), "IBV_SEND_FENCE | IBV_SEND_SIGNALED",
       "e.IBV_SEND_FENCE | e.IBV_SEND_SIGNALED"},
      {FieldKind::ReregFlags, arg(rereg::CHANGE_PD), "IBV_REREG_MR_CHANGE_PD", "e.IBV_REREG_MR_CHANGE_PD"},
      {FieldKind::QpType, arg(qpt::UC), "IBV_QPT_UC", "e.IBV_QPT_UC"},
      {FieldKind::QpState, arg(static_cast<uint64_t>(QpState::kSQD)), "IBV_QPS_SQD", "e.IBV_QPS_SQD"},
      {FieldKind::Addr, arg(0x1000, kNoHandle, 0), "MWC_ADDR_RAW(4096)", "Addr.raw(4096)"},
      {FieldKind::Addr, arg(16, 0, uint8_t(AddrBase::Buf)), "MWC_ADDR_BUF(0, 16)", "Addr.buf(0, 16)"},
      {FieldKind::Addr, arg(uint64_t{0} - 8, 1, uint8_t(AddrBase::Mr)), "MWC_ADDR_MR(1, -8)", "Addr.mr(1, -8)"},
      {FieldKind::Addr, arg(0, 3, uint8_t(AddrBase::Mw)), "MWC_ADDR_MW(3, 0)", "Addr.mw(3, 0)"},
      {FieldKind::Rkey, arg(0, 0x1234, uint8_t(RkeyBase::Raw)), "MWC_RKEY_RAW(4660)", "Rkey.raw(4660)"},
      {FieldKind::Rkey, arg(1, 0, uint8_t(RkeyBase::MwCur)), "MWC_RKEY_MW(0, 1)", "Rkey.mw(0, 1)"},
      {FieldKind::Rkey, arg(0xff, 2, uint8_t(RkeyBase::MwPrev)), "MWC_RKEY_PREV(2, -1)", "Rkey.prev(2, -1)"},
      {FieldKind::Rkey, arg(0, 1, uint8_t(RkeyBase::Mr)), "MWC_RKEY_MR(1, 0)", "Rkey.mr(1, 0)"},
      {FieldKind::Key, arg(1, kNoHandle, uint8_t(KeyBase::Rel)), "MWC_KEY_REL(1)", "Key.rel(1)"},
      {FieldKind::Key, arg(0x12, kNoHandle, uint8_t(KeyBase::Abs)), "MWC_KEY_ABS(18)", "Key.abs(18)"},
  };
  bool kind_seen[int(FieldKind::Key) + 1] = {};
  for (const Case& k : cases) {
    EXPECT_EQ(c_literal(field(k.kind), k.a), k.c);
    EXPECT_EQ(py_literal(field(k.kind), k.a), k.py);
    kind_seen[int(k.kind)] = true;
  }
  for (int k = 0; k <= int(FieldKind::Key); ++k) EXPECT_TRUE(kind_seen[k]) << "no literal tested for kind " << k;
}

TEST(Exports, SameInputSameBytesAndOnlyTheOpsUpToTheFinding) {
  const Trace t = testing::parse_or_fail(
      "alloc_pd p0\nbuf b0 len=4096\nreg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|MW_BIND\n"
      "alloc_mw w0 pd=p0\ndealloc_mw w0\n");
  Reproducer r = reproducer(t);
  r.op = 2;
  EXPECT_EQ(to_c(r), to_c(r));
  EXPECT_EQ(to_pyverbs(r), to_pyverbs(r));
  EXPECT_NE(to_c(r).find("mwc_reg_mr(&rt, 0, 0, MWC_ADDR_BUF(0, 0), 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND)"),
            std::string::npos);
  EXPECT_EQ(to_c(r).find("mwc_alloc_mw(&rt"), std::string::npos);
  EXPECT_NE(to_c(r).find("mwc_verdict(&rt, \"F-0badc0de\", 2)"), std::string::npos);
  EXPECT_EQ(to_pyverbs(r).find("rt.alloc_mw("), std::string::npos);
}

TEST(Exports, ABindThatMustNotTakeEffectSaysTheWindowKeepsItsKey) {
  // A bind across PDs: the window keeps its key, but the device bound it.
  Reproducer r = reproducer(testing::parse_or_fail(
      "alloc_pd p0\nalloc_pd p1\nbuf b0 len=4096\nreg_mr m0 pd=p1 addr=b0 len=4096 access=LOCAL_WRITE|MW_BIND\n"
      "alloc_mw w0 pd=p0\ncreate_qp q0 pd=p0\nwr_bind_mw q0 w0 mr=m0 addr=b0 len=64\n"));
  ASSERT_EQ(to_text(r.expected.back()), "OK");
  r.seen.key = 1;
  const char* line = "At op 6 the specification says OK (the window keeps its key); the device did OK key=+1.";
  EXPECT_NE(to_c(r).find(line), std::string::npos) << to_c(r);
  EXPECT_NE(to_pyverbs(r).find(line), std::string::npos) << to_pyverbs(r);
}

TEST(Exports, HostileTextStaysInsideCommentsAndStrings) {
  Reproducer r = reproducer(testing::parse_or_fail("alloc_pd p0   # a */ comment \"quoted\" \\ \n"));
  r.id = "F-\"*/\\";
  r.summary = "ends */ a comment, \"\"\" a docstring, \\ escapes\x01";
  r.op = 99;  // beyond the trace: every op runs
  const fs::path dir = scratch("hostile");
  write(dir / "repro.c", to_c(r));
  write(dir / "test_repro.py", to_pyverbs(r));
  std::string out;
  EXPECT_EQ(sh(std::string(kCflags) + " -fsyntax-only " + (dir / "repro.c").string(), &out), 0) << out;
  EXPECT_EQ(sh("python3 -m py_compile " + (dir / "test_repro.py").string(), &out), 0) << out;
  // An empty trace still makes programs.
  r.trace.ops.clear();
  write(dir / "empty.c", to_c(r));
  EXPECT_EQ(sh(std::string(kCflags) + " -fsyntax-only " + (dir / "empty.c").string(), &out), 0) << out;
}

TEST(Exports, WriteExportsWritesTheTraceWithItsExpectationsAndBothPrograms) {
  const Trace t = testing::parse_or_fail("alloc_pd p0\nalloc_mw w0 pd=p0 type=2\ndealloc_pd p0\n");
  const Reproducer r = reproducer(t);
  const fs::path dir = scratch("written") / "F-0badc0de";
  std::string err;
  const auto paths = write_exports(r, dir.string(), &err);
  ASSERT_EQ(paths.size(), 3u) << err;
  EXPECT_EQ(paths[0], (dir / "repro.mwt").string());
  EXPECT_EQ(testing::read_file(paths[1]), to_c(r));
  EXPECT_EQ(testing::read_file(paths[2]), to_pyverbs(r));
  const Trace back = testing::parse_or_fail(testing::read_file(paths[0]));
  EXPECT_EQ(back.ops, t.ops);
  ASSERT_EQ(back.expects.size(), 3u);
  EXPECT_EQ(to_text(back.expects[2].pattern), "EBUSY");
  // A folder that cannot be made: no paths, a reason.
  write(scratch("written") / "file", "x");
  EXPECT_TRUE(write_exports(r, (scratch("written") / "file" / "sub").string(), &err).empty());
  EXPECT_FALSE(err.empty());
}

}  // namespace
}  // namespace mwc::exports
