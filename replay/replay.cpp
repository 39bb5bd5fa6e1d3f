#include "replay/replay.hpp"

#include <chrono>
#include <thread>

#include "replay/partition.hpp"
#include "replay/reader.hpp"

namespace mwc::replay {
namespace {

// Streams a file through one engine; returns false with `error` set.
bool stream(const std::string& path, Engine& e, uint64_t& bytes, std::string& error) {
  Reader r(path);
  const bool ok = r.for_each_chunk([&](std::span<const uint8_t> rec) { return e.feed(rec); });
  if (!ok) error = r.error();
  bytes = r.bytes_read();
  return ok;
}

}  // namespace

FileRun replay_file(const std::string& path, const Profile& p, int column, int threads) {
  const auto t0 = std::chrono::steady_clock::now();
  FileRun run;
  Reader head(path);
  if (!head.ok()) {
    run.error = head.error();
    return run;
  }
  const Caps caps = head.caps();
  if (threads <= 1 || !head.rereadable()) {
    Engine e(p, column, caps);
    if (!head.for_each_chunk([&](std::span<const uint8_t> rec) { return e.feed(rec); }))
      run.error = head.error();
    run.bytes = head.bytes_read();
    run.verdicts = e.finish();
  } else {
    Partition part(caps);
    if (!head.for_each_chunk([&](std::span<const uint8_t> rec) { return part.feed(rec); })) {
      run.error = head.error();
      return run;
    }
    run.shards = part.assign(std::min(threads, 64));
    std::vector<Engine> engines;
    engines.reserve(static_cast<size_t>(run.shards));
    for (int s = 0; s < run.shards; ++s) {
      engines.emplace_back(p, column, caps);
      if (run.shards > 1) engines.back().set_filter(part.filter(s));
    }
    std::vector<std::string> errors(static_cast<size_t>(run.shards));
    std::vector<uint64_t> bytes(static_cast<size_t>(run.shards));
    std::vector<std::thread> pool;
    for (int s = 1; s < run.shards; ++s)
      pool.emplace_back([&, s] { stream(path, engines[s], bytes[s], errors[s]); });
    stream(path, engines[0], bytes[0], errors[0]);
    for (auto& t : pool) t.join();
    run.bytes = bytes[0];
    for (int s = 0; s < run.shards; ++s) {
      run.verdicts.merge(engines[s].finish());
      if (run.error.empty()) run.error = errors[s];
    }
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace mwc::replay
