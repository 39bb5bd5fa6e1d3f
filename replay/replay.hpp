// Replaying .mwb files: streamed through the engine on one thread, or split
// into shards (partition.hpp) replayed on several.
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "refmodel/profile.hpp"
#include "replay/engine.hpp"

namespace mwc::replay {

// Takes whole records; returns how many bytes it used (see Reader).
using Feed = std::function<size_t(std::span<const uint8_t>)>;
// Feeds the record bytes [begin, end) of a trace (begin where a record
// starts); returns an empty string or the error.
using Source = std::function<std::string(uint64_t begin, uint64_t end, const Feed& feed)>;

struct ReplayRun {
  std::string error;  // FILE:1:COL: error: ... when the trace cannot be replayed
  Verdicts verdicts;
  int shards = 1;      // shards that had work
  double seconds = 0;  // wall time, sharding included
  uint64_t bytes = 0;  // record bytes replayed (header and string table aside)
  std::string note;    // what the user should know (threads not used, and why)
  bool read_ahead = false;  // a thread read the file ahead (from some chunk on)
};

// Replays a trace of `total` record bytes on up to `threads` threads: the
// objects are partitioned (in pieces, one per thread), the components
// spread over shards, and each shard's ops replayed by its own engine.
ReplayRun replay_sharded(const Source& src, uint64_t total, const Caps& caps, const Profile& p,
                         int column, int threads, uint16_t version = kMwbVersion);

// Replays one file under a profile, checking the expectations of `column`,
// on one engine. Splitting one file costs a pass over it, and each engine
// would read every record: more engines would be slower than one. With
// threads > 1 a second thread reads the file (and sums it) a chunk ahead
// of the engine once the engine is behind the reading (Ahead::when_behind),
// and the run says (in `note`) to replay shard files for more.
ReplayRun replay_file(const std::string& path, const Profile& p, int column, int threads);

// Replays several files, up to `threads` at once, each on its own engine:
// files are independent traces (as `mwcheck gen --shards` writes one split
// by PD), so they need no partition. One file gets all threads; each file
// run at once gets a thread reading ahead when there are twice as many
// threads as files at once. Returns a run per file, in the files' order.
// Returns how many of `threads` replay_files gives each of `files` files
// it replays at once: 2 (an engine and a thread reading ahead) when there
// are twice as many threads as files at once and more than one core, else
// 1.
int threads_per_file(size_t files, int threads);
std::vector<ReplayRun> replay_files(const std::vector<std::string>& paths, const Profile& p,
                                    int column, int threads);

}  // namespace mwc::replay
