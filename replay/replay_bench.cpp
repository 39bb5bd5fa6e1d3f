// Replay throughput against the time it takes merely to read the same
// bytes, in one run, for two mixes (`mwcheck gen`'s default mix, and a
// data-path-only mix: peer reads and writes, no errors) in both .mwb
// versions (1: full records and an expectation record per op; 2: compact
// hot records with the usual outcome folded in).
//
// Each BM_Replay line gives: best_Mops (ops/s of the fastest iteration),
// read_Mops (ops/s of the fastest read of the same bytes), x_read (their
// time ratio: replay over read), bytes_per_op, and on version 2 lines
// x_v1 (how many times faster than the same mix in version 1).
// items_per_second is Google Benchmark's mean; on a shared machine the
// best says more. BM_WalkRecords walks the same records and checks
// nothing (walk_records()): the ceiling of a replay that goes record by
// record, which BM_Replay's x_walk (replay time over walk time) measures
// against. BM_ReplayShardFiles/N replays the default mix split by
// PD (gen --shards 2) on N threads, one engine per shard, as `mwcheck
// replay --threads N a b`. BM_ReplayWay replays version 2 as BM_Replay
// does, its long runs of compact records checked one at a time, or in
// batches loading the words one by one or by gathers, on each instruction
// set the processor has (AVX-512, AVX2): what batching gains on this
// processor, and on which. The traces are in memory: the figures are the
// engine's, not the disk's.
//
// Instructions per op: `replay_bench --instructions` first replays each
// mix and version once under callgrind (valgrind must be on PATH; it is
// optional otherwise) at two trace lengths and prints the instructions the
// record loop (Engine::feed) runs per op, the difference of the two counts
// over the difference of ops (the objects' setup cancels out; valgrind
// runs no AVX-512, so long runs are checked by the AVX2 batch there, or one
// at a time on a processor without AVX2); then
// the benchmarks run as usual. Where hardware counters exist,
// --benchmark_perf_counters=INSTRUCTIONS counts them too.
// MWCHECK_BENCH_OPS sets the trace length (default 4M ops); measure with
// --benchmark_min_time=2 or more. MWCHECK_BENCH_MIX and
// MWCHECK_BENCH_ERRORS replace the default mix (its weights and its errors
// per mille, as `gen --mix` and `--errors`), so that what an op kind costs
// is the difference between two runs.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include "refmodel/binary_codec.hpp"
#include "refmodel/mwb_record.hpp"
#include "replay/engine.hpp"
#include "replay/gen.hpp"
#include "replay/replay.hpp"

namespace mwc::replay {
namespace {

// The records of a generated trace in one .mwb version.
class VectorSink final : public TraceSink {
 public:
  explicit VectorSink(uint16_t version = kMwbVersion) : version(version) {}
  uint16_t version;
  std::vector<uint8_t> bytes;
  Caps caps{};
  void begin(const Caps& c) override { caps = c; }
  void op(const Op& op, const std::vector<Expectation>& es) override {
    mwb::encode_op_with(op, es, bytes, version);
  }
  bool end() override { return true; }
};

// The same trace into several sinks.
class TeeSink final : public TraceSink {
 public:
  std::vector<TraceSink*> to;
  void begin(const Caps& c) override { for (auto* s : to) s->begin(c); }
  void op(const Op& op, const std::vector<Expectation>& es) override {
    for (auto* s : to) s->op(op, es);
  }
  bool end() override { return true; }
};

// Returns the sum of every 8-byte word: the least a reader of the trace
// does (every byte comes from memory once), at the rate the machine reads.
// Four sums side by side, and a function of its own at a line's start:
// with one sum the loop's speed hung on where the linker put it (1.0 or
// 1.7 G ops/s of the data-path mix, in two builds that differed only in
// another file), and ran below the rate memory gives (24-28 GB/s on an
// Intel Xeon against 18-19 at best).
[[gnu::noinline, gnu::aligned(64)]] uint64_t read_bytes(std::span<const uint8_t> b) {
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, w0, w1, w2, w3;
  size_t i = 0;
  for (; i + 32 <= b.size(); i += 32) {
    std::memcpy(&w0, b.data() + i, 8), std::memcpy(&w1, b.data() + i + 8, 8);
    std::memcpy(&w2, b.data() + i + 16, 8), std::memcpy(&w3, b.data() + i + 24, 8);
    s0 += w0, s1 += w1, s2 += w2, s3 += w3;
  }
  uint64_t sum = s0 + s1 + s2 + s3;
  for (; i < b.size(); ++i) sum += b[i];
  return sum;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Input {
  uint64_t ops = 0;
  std::array<VectorSink, 2> v{VectorSink(1), VectorSink(2)};  // versions 1 and 2
  // The best read of each version's bytes (BM_ReadBytes improves on it),
  // and the best replay of each (BM_Replay).
  mutable std::array<double, 2> read_seconds{1e9, 1e9}, replay_seconds{1e9, 1e9};
  // The best walk of each version's records (BM_WalkRecords).
  mutable std::array<double, 2> walk_seconds{1e9, 1e9};
};

uint64_t bench_ops() {
  const char* n = std::getenv("MWCHECK_BENCH_OPS");
  return n ? std::strtoull(n, nullptr, 10) : 4'000'000;
}

// The data-path-only mix: peer reads and writes through valid keys.
constexpr const char* kDataPathMix =
    "peer_fetch_add=0,peer_cmp_swap=0,bind_mw=0,wr_bind_mw=0,wr_local_inv=0,peer_send_inv=0,"
    "wr_send=0,dereg_mr=0,rereg_mr=0,dealloc_mw=0";

const Input& input(int mix) {
  static std::array<Input, 2> in;
  static std::array<bool, 2> made{};
  if (made[mix]) return in[mix];
  made[mix] = true;
  GenOptions o;
  o.ops = bench_ops();
  if (mix == 1) o.mix = kDataPathMix, o.error_permille = 0;
  // Another mix in the default mix's lines, as gen's --mix and --errors.
  if (const char* m = std::getenv("MWCHECK_BENCH_MIX"); m && mix == 0) o.mix = m;
  if (const char* e = std::getenv("MWCHECK_BENCH_ERRORS"); e && mix == 0) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(e, &end, 10);
    if (!*e || *end || v > 1000) {
      std::fprintf(stderr, "replay_bench: MWCHECK_BENCH_ERRORS: not a number from 0 to 1000: '%s'\n", e);
      std::exit(2);
    }
    o.error_permille = static_cast<uint32_t>(v);
  }
  TeeSink tee;
  tee.to = {&in[mix].v[0], &in[mix].v[1]};
  if (const std::string err = generate(o, tee); !err.empty()) {
    std::fprintf(stderr, "replay_bench: MWCHECK_BENCH_MIX: %s\n", err.c_str());
    std::exit(2);
  }
  in[mix].ops = o.ops;
  for (int v = 0; v < 2; ++v)
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(read_bytes(in[mix].v[v].bytes));
      in[mix].read_seconds[v] = std::min(in[mix].read_seconds[v], seconds_since(t0));
    }
  return in[mix];
}

// The default mix split by PD into two traces (gen --shards 2).
const std::array<VectorSink, 2>& shards() {
  static const std::array<VectorSink, 2> s = [] {
    std::array<VectorSink, 2> s;
    GenOptions o;
    o.ops = bench_ops();
    TraceSink* const halves[] = {&s[0], &s[1]};
    generate(o, halves);
    return s;
  }();
  return s;
}

const int kVerbs = static_cast<int>(ProfileId::verbs);

void report(benchmark::State& state, uint64_t ops, size_t bytes, double best, double read) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * ops));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["best_Mops"] = static_cast<double>(ops) / best / 1e6;
  state.counters["read_Mops"] = static_cast<double>(ops) / read / 1e6;
  state.counters["x_read"] = best / read;
  state.counters["bytes_per_op"] = static_cast<double>(bytes) / static_cast<double>(ops);
}

// Merely reading the bytes of a mix in a version.
void BM_ReadBytes(benchmark::State& state, int mix, int v) {
  const Input& in = input(mix);
  const auto& bytes = in.v[v].bytes;
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(read_bytes(bytes));
    best = std::min(best, seconds_since(t0));
  }
  in.read_seconds[v] = std::min(best, in.read_seconds[v]);
  report(state, in.ops, bytes.size(), best, in.read_seconds[v]);
}

// What walking a trace's records found: its ops (compact and full records)
// and a sum of one byte of each record, so that every record is read.
struct Walk {
  uint64_t ops = 0, sum = 0;
};

// Returns the walk of the records in `bytes` (version f's), walked as the
// record loop walks them and nothing more: a run of compact records at
// their one size, any other record by the size its code gives (an op
// unless it is an expectation or a comment). A replay shaped as the record
// loop is (record by record, a branch on whether each is compact) does all
// of this and more: this is its ceiling.
Walk walk_records(std::span<const uint8_t> bytes, const mwb::Format& f) {
  Walk w;
  const uint8_t* p = bytes.data();
  const uint8_t* const end = p + bytes.size();
  while (p < end) {
    const uint8_t code = f.code_of[*p];
    if (mwb::is_compact(code)) [[likely]] {
      // A run of compact records, all of one size: no record's place
      // waits for the one before it.
      do w.sum += p[1], ++w.ops, p += mwb::kCompactSize;
      while (p < end && mwb::is_compact(f.code_of[*p]));
      continue;
    }
    w.sum += p[1];
    w.ops += code != mwb::kExpectCode && code != mwb::kCommentCode;
    p += f.size_at[*p];
  }
  return w;
}

// Walking the records of a mix in a version (walk_records()): the ceiling
// of the record loop. The walk must find every op, or the line fails.
void BM_WalkRecords(benchmark::State& state, int mix, int v) {
  const Input& in = input(mix);
  const VectorSink& t = in.v[v];
  const mwb::Format& f = mwb::format(t.version);
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const Walk w = walk_records(t.bytes, f);
    benchmark::DoNotOptimize(w.sum);
    best = std::min(best, seconds_since(t0));
    if (w.ops != in.ops) state.SkipWithError("the walk did not find every op");
  }
  report(state, in.ops, t.bytes.size(), best, in.read_seconds[v]);
  in.walk_seconds[v] = std::min(best, in.walk_seconds[v]);
}

// One engine on this thread, as `mwcheck replay` runs a file.
void BM_Replay(benchmark::State& state, int mix, int v) {
  const Input& in = input(mix);
  const VectorSink& t = in.v[v];
  const Profile verbs = profile(ProfileId::verbs);
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    Engine e(verbs, kVerbs, t.caps, t.version);
    e.feed(t.bytes);
    const Verdicts& r = e.finish();
    best = std::min(best, seconds_since(t0));
    if (r.mismatches || r.checked != in.ops) state.SkipWithError("the replay did not pass");
  }
  report(state, in.ops, t.bytes.size(), best, in.read_seconds[v]);
  in.replay_seconds[v] = std::min(best, in.replay_seconds[v]);
  if (v == 1 && in.replay_seconds[0] < 1e9) state.counters["x_v1"] = in.replay_seconds[0] / best;
  if (in.walk_seconds[v] < 1e9) state.counters["x_walk"] = best / in.walk_seconds[v];
}

// The ways a replay can check a long run of compact records.
enum class Way { one_at_a_time, words, gather };

// One engine as BM_Replay, version 2, its runs checked one record at a
// time or in batches on `isa` loading the words one way: what batching
// gains on this processor, and which loads and instruction set it should
// take.
void BM_ReplayWay(benchmark::State& state, int mix, Way way, BatchIsa isa) {
  const Input& in = input(mix);
  const VectorSink& t = in.v[1];
  const Profile verbs = profile(ProfileId::verbs);
  if (way != Way::one_at_a_time && !usual_batch_available()) {
    state.SkipWithError("this processor has neither AVX-512F nor AVX2: no batches");
    return;
  }
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    Engine e(verbs, kVerbs, t.caps, t.version);
    if (way == Way::one_at_a_time) {
      e.batch_records(Engine::kNever);
    } else {
      e.batch_loads(way == Way::gather ? BatchLoads::gather : BatchLoads::words);
      e.batch_isa(isa);
    }
    e.feed(t.bytes);
    const Verdicts& r = e.finish();
    best = std::min(best, seconds_since(t0));
    if (r.mismatches || r.checked != in.ops) state.SkipWithError("the replay did not pass");
  }
  report(state, in.ops, t.bytes.size(), best, in.read_seconds[1]);
}

// Replays mix `mix` in version v once (the program as callgrind runs it).
int replay_once(int mix, int v) {
  const Input& in = input(mix);
  const VectorSink& t = in.v[v];
  Engine e(profile(ProfileId::verbs), kVerbs, t.caps, t.version);
  e.feed(t.bytes);
  return e.finish().mismatches == 0 ? 0 : 1;
}

// Returns the instructions callgrind counts in Engine::feed* when this
// program replays `what` ("MIX VERSION") on a trace of `ops` ops, or -1.
double feed_instructions(const char* self, const std::string& what, uint64_t ops) {
  const std::string cmd = "MWCHECK_BENCH_OPS=" + std::to_string(ops) +
                          " valgrind --tool=callgrind --callgrind-out-file=/dev/null "
                          "'--toggle-collect=mwc::replay::Engine::feed*' '" + self +
                          "' --replay-once " + what + " 2>&1";
  std::FILE* f = popen(cmd.c_str(), "r");
  if (!f) return -1;
  char line[512];
  double n = -1;
  while (std::fgets(line, sizeof line, f))
    if (const char* c = std::strstr(line, "Collected : ")) n = std::strtod(c + 12, nullptr);
  return pclose(f) == 0 ? n : -1;
}

// Prints the record loop's instructions per op for each mix and version.
bool print_instructions(const char* self) {
  const uint64_t n = std::max<uint64_t>(bench_ops() / 8, 100'000);
  std::printf("instructions per op (callgrind, Engine::feed, %llu vs %llu ops):\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(2 * n));
  for (const int mix : {0, 1})
    for (const int v : {0, 1}) {
      const std::string what = std::to_string(mix) + " " + std::to_string(v);
      const double a = feed_instructions(self, what, n), b = feed_instructions(self, what, 2 * n);
      if (a < 0 || b < 0) {
        std::fprintf(stderr, "replay_bench: cannot run valgrind --tool=callgrind\n");
        return false;
      }
      std::printf("  %-8s v%d  %6.1f\n", mix ? "datapath" : "default", v + 1,
                  (b - a) / static_cast<double>(n));
    }
  std::fflush(stdout);
  return true;
}

// The shard files on range(0) threads, one engine per shard.
void BM_ReplayShardFiles(benchmark::State& state) {
  const auto& s = shards();
  const Profile verbs = profile(ProfileId::verbs);
  const size_t threads = static_cast<size_t>(state.range(0));
  const uint64_t ops = bench_ops();
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    std::array<Verdicts, 2> v;
    const auto job = [&](size_t t) {
      for (size_t i = t; i < s.size(); i += threads) {
        Engine e(verbs, kVerbs, s[i].caps, s[i].version);
        e.feed(s[i].bytes);
        v[i] = e.finish();
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(job, t);
    job(0);
    for (auto& t : pool) t.join();
    best = std::min(best, seconds_since(t0));
    if (v[0].mismatches || v[1].mismatches || v[0].checked + v[1].checked != ops)
      state.SkipWithError("the replay did not pass");
  }
  const size_t bytes = s[0].bytes.size() + s[1].bytes.size();
  report(state, ops, bytes, best, 1e9);
  state.counters.erase("read_Mops");
  state.counters.erase("x_read");
  state.counters["threads"] = static_cast<double>(threads);
}

[[maybe_unused]] const bool registered = [] {
  for (const int mix : {0, 1})
    for (const int v : {0, 1}) {
      const std::string name =
          std::string(mix ? "datapath" : "default") + "/v" + std::to_string(v + 1);
      benchmark::RegisterBenchmark(("BM_ReadBytes/" + name).c_str(), BM_ReadBytes, mix, v)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
      benchmark::RegisterBenchmark(("BM_WalkRecords/" + name).c_str(), BM_WalkRecords, mix, v)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
      benchmark::RegisterBenchmark(("BM_Replay/" + name).c_str(), BM_Replay, mix, v)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  for (const int mix : {0, 1}) {
    const std::string at = "BM_ReplayWay/" + std::string(mix ? "datapath" : "default") + "/v2/";
    const auto add = [&](const std::string& name, Way way, BatchIsa isa) {
      benchmark::RegisterBenchmark((at + name).c_str(), BM_ReplayWay, mix, way, isa)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
    };
    add("one_at_a_time", Way::one_at_a_time, best_batch_isa());
    for (const auto& [way, name] : {std::pair{Way::words, "batch_words"}, std::pair{Way::gather, "batch_gather"}})
      for (const BatchIsa isa : {BatchIsa::avx512, BatchIsa::avx2})
        // Each instruction set the processor has; with neither, one line
        // per way says so.
        if (batch_isa_available(isa) || (!usual_batch_available() && isa == best_batch_isa()))
          add(std::string(name) + "/" + batch_isa_name(isa), way, isa);
  }
  benchmark::RegisterBenchmark("BM_ReplayShardFiles", BM_ReplayShardFiles)
      ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace mwc::replay

// As BENCHMARK_MAIN, with two modes of its own first: --instructions
// (print instructions per op, then benchmark) and --replay-once MIX VERSION
// (what callgrind runs).
int main(int argc, char** argv) {
  using namespace mwc::replay;
  if (argc == 4 && std::string_view(argv[1]) == "--replay-once")
    return replay_once(std::atoi(argv[2]) != 0, std::atoi(argv[3]) != 0);
  if (argc > 1 && std::string_view(argv[1]) == "--instructions") {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return 1;
    self[n] = 0;
    if (!print_instructions(self)) return 1;
    argv[1] = argv[0];
    ++argv, --argc;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
