// Replaying .mwb files: streamed through the engine on one thread, or split
// into shards (partition.hpp) replayed on several.
#pragma once
#include <string>
#include <vector>

#include "refmodel/profile.hpp"
#include "replay/engine.hpp"

namespace mwc::replay {

struct FileRun {
  std::string error;  // FILE:1:COL: error: ... when the file cannot be replayed
  Verdicts verdicts;
  uint64_t bytes = 0;  // record bytes replayed (per shard)
  int shards = 1;      // shards that had work
  double seconds = 0;  // wall time, sharding included
};

// Replays one file under a profile, checking the expectations of `column`,
// on up to `threads` threads (several only when the file splits into
// independent shards and can be read again). Returns what it found.
FileRun replay_file(const std::string& path, const Profile& p, int column, int threads);

}  // namespace mwc::replay
