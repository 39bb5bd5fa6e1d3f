// Reads a descriptor on a thread of its own, a chunk ahead of the caller,
// and sums the bytes as it goes: the copy out of the kernel and the
// checksum, about a seventh of a file's replay on one thread, then run
// beside the records' replay instead of before it. Chunks come in file
// order; each has `headroom` free bytes before its data, where the caller
// puts the unused end of the chunk before (a record cut by its end), so
// that a record never has to be copied whole.
#pragma once
#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "refmodel/checksum.hpp"

namespace mwc::replay {

class ReadAhead {
 public:
  struct Chunk {
    uint8_t* data = nullptr;  // the bytes read, `headroom` writable bytes before them
    size_t size = 0;
    int error = 0;      // the errno of a read that failed (then size is 0)
    bool last = false;  // none follows: the bytes asked for, the end, or an error
  };
  // Starts reading `total` bytes from fd, where it stands (or up to its
  // end, whichever comes first), in chunks of `chunk` bytes (at least 1;
  // from a pipe, `stream`, what has come, up to that), each added to *sum
  // (unless null) before the caller gets it but for the last `unsummed`
  // bytes of all (a pipe's trailer, which sums the bytes before it); the
  // bytes `before` (read before, not summed yet) come first in that order.
  // fd is the thread's until this is destroyed. Allocates its buffers
  // here, none after.
  ReadAhead(int fd, uint64_t total, size_t chunk, size_t headroom, Checksum* sum,
            size_t unsummed = 0, bool stream = false, std::span<const uint8_t> before = {});
  // Stops the thread (a read under way finishes first) and waits for it.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Returns the next chunk, waiting for it. Not called again after the
  // last. The caller holds at most two chunks: give the older back first.
  Chunk next();
  // Gives back the oldest chunk taken: its buffer is read into again.
  void done();

 private:
  void run();
  void add_to_sum(const uint8_t* p, size_t n);

  static constexpr size_t kSlots = 3;  // one read ahead while the caller holds two
  struct Slot {
    std::vector<uint8_t> buf;
    Chunk chunk;
    bool full = false;  // read, and not yet given back
  };
  int fd_;
  uint64_t left_;
  size_t chunk_, headroom_;
  Checksum* sum_;
  std::vector<uint8_t> unsummed_;  // the last bytes read, not yet summed
  size_t held_ = 0;                // how many of them there are
  bool stream_;
  std::array<Slot, kSlots> slots_;
  size_t taken_ = 0, given_back_ = 0;  // chunks the caller took, and gave back
  bool stop_ = false;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;  // last: started once everything above is set
};

}  // namespace mwc::replay
