// Replay throughput on a generated mixed trace (mwcheck gen's default mix),
// against the time it takes merely to read the same bytes. Ops/s are
// Google Benchmark's items_per_second (mean wall time); on a shared machine
// the best iteration says more: `best_Mops` is ops/s of the fastest
// iteration and `x_read` its time over the fastest read of the bytes. The
// trace is in memory, so the figures are the engine's, not the disk's.
// MWCHECK_BENCH_OPS sets the trace length (default 4M ops); measure with
// --benchmark_min_time=2 or more.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "refmodel/mwb_record.hpp"
#include "replay/engine.hpp"
#include "replay/gen.hpp"
#include "replay/replay.hpp"

namespace mwc::replay {
namespace {

class VectorSink final : public TraceSink {
 public:
  std::vector<uint8_t> bytes;
  Caps caps{};
  void begin(const Caps& c) override { caps = c; }
  void op(const Op& op, const std::vector<Expectation>& es) override {
    mwb::encode_op_with(op, es, bytes, kMwbVersion);
  }
  bool end() override { return true; }
};

struct Input {
  VectorSink trace;
  uint64_t ops = 0;
  double read_seconds = 0;  // best of several reads of every byte
  // The same trace split by PD into two (gen --shards 2).
  std::array<VectorSink, 2> shards;
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

const Input& input() {
  static const Input in = [] {
    Input in;
    GenOptions o;
    const char* n = std::getenv("MWCHECK_BENCH_OPS");
    o.ops = n ? std::strtoull(n, nullptr, 10) : 4'000'000;
    generate(o, in.trace);
    TraceSink* const halves[] = {&in.shards[0], &in.shards[1]};
    generate(o, halves);
    in.ops = o.ops;
    in.read_seconds = 1e9;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      benchmark::DoNotOptimize(read_bytes(in.trace.bytes));
      in.read_seconds = std::min(
          in.read_seconds, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return in;
  }();
  return in;
}

const int kVerbs = static_cast<int>(ProfileId::verbs);

void report(benchmark::State& state, const Input& in, double best, int shards) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.ops));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.trace.bytes.size()));
  state.counters["best_Mops"] = static_cast<double>(in.ops) / best / 1e6;
  state.counters["x_read"] = best / in.read_seconds;
  state.counters["shards"] = shards;
}

void BM_ReadBytes(benchmark::State& state) {
  const Input& in = input();
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(read_bytes(in.trace.bytes));
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  report(state, in, best, 1);
}

// One engine on this thread, as `mwcheck replay` runs a file.
void BM_Replay(benchmark::State& state) {
  const Input& in = input();
  const Profile verbs = profile(ProfileId::verbs);
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    Engine e(verbs, kVerbs, in.trace.caps);
    e.feed(in.trace.bytes);
    const Verdicts& v = e.finish();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (v.mismatches || v.checked != in.ops) state.SkipWithError("the replay did not pass");
  }
  report(state, in, best, 1);
}

// Sharding included: the partition (in pieces, one per thread), then one
// engine per shard, as `mwcheck replay --threads N` runs a file.
void BM_ReplaySharded(benchmark::State& state) {
  const Input& in = input();
  const Profile verbs = profile(ProfileId::verbs);
  const std::span<const uint8_t> all(in.trace.bytes);
  const Source memory = [&](uint64_t begin, uint64_t end, const Feed& feed) {
    feed(all.subspan(begin, end - begin));
    return std::string();
  };
  double best = 1e9;
  int shards = 1;
  for (auto _ : state) {
    const ReplayRun r = replay_sharded(memory, all.size(), in.trace.caps, verbs, kVerbs,
                                       static_cast<int>(state.range(0)));
    best = std::min(best, r.seconds);
    shards = r.shards;
    if (r.verdicts.mismatches || r.verdicts.checked != in.ops)
      state.SkipWithError("the replay did not pass");
  }
  report(state, in, best, shards);
}

// The trace as shard files (gen --shards 2), one engine per shard, on
// range(0) threads, as `mwcheck replay --threads N a.mwb b.mwb` runs them.
void BM_ReplayShardFiles(benchmark::State& state) {
  const Input& in = input();
  const Profile verbs = profile(ProfileId::verbs);
  const size_t threads = static_cast<size_t>(state.range(0));
  double best = 1e9;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    std::array<Verdicts, 2> v;
    const auto job = [&](size_t t) {
      for (size_t s = t; s < in.shards.size(); s += threads) {
        Engine e(verbs, kVerbs, in.shards[s].caps);
        e.feed(in.shards[s].bytes);
        v[s] = e.finish();
      }
    };
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(job, t);
    job(0);
    for (auto& t : pool) t.join();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (v[0].mismatches || v[1].mismatches || v[0].checked + v[1].checked != in.ops)
      state.SkipWithError("the replay did not pass");
  }
  report(state, in, best, static_cast<int>(threads));
}

BENCHMARK(BM_ReadBytes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Replay)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReplaySharded)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReplayShardFiles)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace mwc::replay

BENCHMARK_MAIN();
