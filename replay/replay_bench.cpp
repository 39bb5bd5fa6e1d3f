// Replay throughput against the time it takes merely to read the same
// bytes, in one run, for two mixes (`mwcheck gen`'s default mix, and a
// data-path-only mix: peer reads and writes, no errors) in both .mwb
// versions (1: full records and an expectation record per op; 2: compact
// hot records with the usual outcome folded in).
//
// Each BM_Replay line gives: best_Mops (ops/s of the fastest iteration),
// read_Mops (ops/s of the fastest read of the same bytes), x_read (their
// time ratio: replay over read) and bytes_per_op. items_per_second is
// Google Benchmark's mean; on a shared machine the best says more.
// BM_ReplayShardFiles/N replays the default mix split by PD (gen --shards 2)
// on N threads, one engine per shard, as `mwcheck replay --threads N a b`.
// The traces are in memory: the figures are the engine's, not the disk's.
//
// Instructions per op: where the machine has hardware counters,
// --benchmark_perf_counters=INSTRUCTIONS; elsewhere callgrind, counting the
// record loop only:
//   MWCHECK_BENCH_OPS=500000 valgrind --tool=callgrind
//     --toggle-collect='mwc::replay::Engine::feed*' replay_bench
//     --benchmark_filter='BM_Replay/default/v2' --benchmark_min_time=0.001
// and divide the Ir collected by the ops (one iteration runs).
// MWCHECK_BENCH_OPS sets the trace length (default 4M ops); measure with
// --benchmark_min_time=2 or more.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
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
// does (every byte comes from memory once).
uint64_t read_bytes(std::span<const uint8_t> b) {
  uint64_t s = 0, w;
  size_t i = 0;
  for (; i + 8 <= b.size(); i += 8) std::memcpy(&w, b.data() + i, 8), s += w;
  for (; i < b.size(); ++i) s += b[i];
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Input {
  uint64_t ops = 0;
  std::array<VectorSink, 2> v{VectorSink(1), VectorSink(2)};  // versions 1 and 2
  // The best read of each version's bytes (BM_ReadBytes improves on it).
  mutable std::array<double, 2> read_seconds{1e9, 1e9};
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
  TeeSink tee;
  tee.to = {&in[mix].v[0], &in[mix].v[1]};
  generate(o, tee);
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
      benchmark::RegisterBenchmark(("BM_Replay/" + name).c_str(), BM_Replay, mix, v)
          ->Unit(benchmark::kMillisecond)->UseRealTime();
    }
  benchmark::RegisterBenchmark("BM_ReplayShardFiles", BM_ReplayShardFiles)
      ->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace mwc::replay

BENCHMARK_MAIN();
