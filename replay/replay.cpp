#include "replay/replay.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "replay/partition.hpp"
#include "replay/reader.hpp"

namespace mwc::replay {
namespace {

// Runs job(i) for i in [0, n), job(0) on this thread; none when n is 0.
template <class F>
void on_threads(size_t n, F job) {
  if (n == 0) return;
  std::vector<std::thread> pool;
  for (size_t i = 1; i < n; ++i) pool.emplace_back(job, i);
  job(0);
  for (auto& t : pool) t.join();
}

// Returns the first error of several, or "".
std::string first_error(const std::vector<std::string>& errors) {
  for (const auto& e : errors)
    if (!e.empty()) return e;
  return "";
}

}  // namespace

ReplayRun replay_sharded(const Source& src, uint64_t total, const Caps& caps, const Profile& p,
                         int column, int threads, uint16_t version) {
  ReplayRun run;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> starts{0};
  if (threads > 1) {  // where each thread's piece of the partition starts
    starts.clear();
    uint64_t at = 0;
    run.error = src(0, total, [&](std::span<const uint8_t> rec) {
      const size_t used = Partition::cut(rec, at, total, threads, starts, version);
      at += used;
      return used;
    });
    if (!run.error.empty()) return run;
  }
  starts.push_back(total);
  const size_t pieces = starts.size() - 1;
  std::vector<Partition> parts;
  std::vector<std::string> errors(std::max<size_t>(pieces, static_cast<size_t>(threads)));
  if (threads > 1 && pieces > 0) {  // no record, no piece: one engine runs nothing
    parts.assign(pieces, Partition(caps, version));
    on_threads(pieces, [&](size_t s) {
      errors[s] = src(starts[s], starts[s + 1], [&](auto rec) { return parts[s].feed(rec); });
    });
    if (run.error = first_error(errors); !run.error.empty()) return run;
    for (size_t s = 1; s < pieces; ++s) parts[0].merge(parts[s]);
    run.shards = parts[0].assign(std::min(threads, 64));
  }
  std::vector<std::unique_ptr<Engine>> engines;
  for (int s = 0; s < run.shards; ++s) {
    engines.push_back(std::make_unique<Engine>(p, column, caps, version));
    if (run.shards > 1) engines.back()->set_filter(parts[0].filter(s));
  }
  on_threads(engines.size(), [&](size_t s) {
    errors[s] = src(0, total, [&](auto rec) { return engines[s]->feed(rec); });
  });
  if (run.error = first_error(errors); !run.error.empty()) return run;
  for (auto& e : engines) run.verdicts.merge(e->finish());
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

namespace {
// Returns whether a file given `threads` may get a thread reading ahead:
// one beside its engine, which pays only on a core of its own (and when
// the engine is behind the reading: Ahead::when_behind).
bool reads_ahead(int threads) { return threads > 1 && std::thread::hardware_concurrency() > 1; }
}  // namespace

ReplayRun replay_file(const std::string& path, const Profile& p, int column, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  ReplayRun run;
  Reader r(path, Reader::kChunk, reads_ahead(threads) ? Ahead::when_behind : Ahead::never);
  if (!r.ok()) {
    run.error = r.error();
    return run;
  }
  if (threads > 2)
    run.note = "one file replays on one engine, with one thread reading ahead (engines would each "
               "read all of it): write shards with `mwcheck gen --shards N` and replay them with "
               "--threads N";
  Engine e(p, column, r.caps(), r.version());
  if (!r.for_each_chunk([&](std::span<const uint8_t> rec) { return e.feed(rec); }))
    run.error = r.error();
  run.verdicts = e.finish();
  if (run.error.empty()) run.error = r.check_ops(run.verdicts.ops);
  run.bytes = r.bytes_read();
  run.read_ahead = r.read_ahead();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

int threads_per_file(size_t files, int threads) {
  const size_t at_once = std::min(files, static_cast<size_t>(std::max(threads, 1)));
  return at_once > 0 && reads_ahead(static_cast<int>(static_cast<size_t>(threads) / at_once)) ? 2 : 1;
}

std::vector<ReplayRun> replay_files(const std::vector<std::string>& paths, const Profile& p,
                                    int column, int threads) {
  std::vector<ReplayRun> runs(paths.size());
  if (paths.size() == 1) {
    runs[0] = replay_file(paths[0], p, column, threads);
    return runs;
  }
  std::atomic<size_t> next{0};  // the next file nobody replays yet
  const size_t at_once = std::min(paths.size(), static_cast<size_t>(std::max(threads, 1)));
  const int each = threads_per_file(paths.size(), threads);
  on_threads(at_once, [&](size_t) {
    for (size_t i; (i = next.fetch_add(1)) < paths.size();)
      runs[i] = replay_file(paths[i], p, column, each);
  });
  return runs;
}

}  // namespace mwc::replay
