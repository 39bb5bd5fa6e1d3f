// Reads the records of a .mwb file in bounded chunks: a trace of any length
// replays in the memory of one chunk. Works on regular files and on pipes
// (what follows the records, string table and trailer, is held back: the
// header says its size). A file of version 3 on is checked as it is read: a
// regular file cut short is refused at once, a pipe at its end, and the
// checksum of the whole file once every record was read.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "refmodel/binary_codec.hpp"
#include "refmodel/checksum.hpp"
#include "refmodel/trace.hpp"
#include "util/stdio_path.hpp"

namespace mwc::replay {

// When a Reader reads (and sums) the bytes on a thread of its own, a chunk
// ahead of the records fed: for a reader that has a core of its own to
// spare. Reading ahead pays only when feeding the records is slower than
// reading them: the bytes the thread writes are then read on another core,
// and a fast feed waits for that traffic (on a 2-core machine, a data-path
// trace replayed 5-8% slower with a thread reading ahead).
enum class Ahead : uint8_t {
  never,
  // Read on the caller's thread while the feed takes less than kAheadWhen
  // times the reading (timed from the kProbeChunks'th chunk on, over all
  // chunks so far), then ahead. On a pipe, the reading includes waiting
  // for its writer: a feed that keeps up with the writer stays.
  when_behind,
  // From the first chunk: what the tests use to reach that path at once.
  always,
};

class Reader {
 public:
  // Opens `path` ("-" is standard input, read from where it stands) and
  // reads the header. On failure ok() is false and error() says why, as
  // FILE:1:COL: error: ... (COL the byte offset + 1). Reads in chunks of
  // `chunk` bytes (256 KiB: a chunk and the replay's tables stay in a
  // core's L2), ahead as `ahead` says.
  explicit Reader(const std::string& path, size_t chunk = kChunk, Ahead ahead = Ahead::never);
  static constexpr size_t kChunk = size_t{256} << 10;
  static constexpr int kProbeChunks = 16;
  static constexpr int kAheadWhen = 2;
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Returns the caps the header declares, clamped into [1, kMaxCap].
  const Caps& caps() const { return caps_; }
  // Returns the .mwb version of the file.
  uint16_t version() const { return header_.version; }
  // Returns whether the file can be read again by name (a regular file
  // named by its path: standard input is read once, even from a file).
  bool rereadable() const { return regular_ && path_ != kStdioPath; }

  // Calls feed(records) with consecutive spans of record bytes until the
  // end; feed returns how many bytes it used (whole records), and the rest
  // comes again at the front of the next span. A truncated last record is
  // dropped. Returns false after a read error or, from version 3 on, a
  // file cut short or not as written (error() says which).
  bool for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed);
  // The same over the record bytes [begin, end) of a regular file, begin
  // being where a record starts (no checksum: not every byte is read).
  bool for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed, uint64_t begin,
                      uint64_t end);
  // Returns the number of record bytes of a regular file.
  uint64_t record_bytes() const { return records_; }
  // Returns the number of record bytes read so far.
  uint64_t bytes_read() const { return read_; }
  // Returns whether the bytes were read ahead (from some chunk on).
  bool read_ahead() const { return went_ahead_; }
  // Returns the error of a file whose trailer does not count `ops` ops,
  // after a whole pass (version 3 on), as error() would say it; or "".
  std::string check_ops(uint64_t ops) const;

 private:
  bool fail(uint64_t offset, const std::string& what);
  bool read_error();
  bool pump(const std::function<size_t(std::span<const uint8_t>)>& feed, bool check);
  // What pump() read before it went on reading ahead: the bytes not fed,
  // the last of them not summed, and how many bytes it read in all.
  struct ReadSoFar {
    std::span<const uint8_t> unfed, unsummed;
    uint64_t got = 0;
  };
  bool pump_ahead(const std::function<size_t(std::span<const uint8_t>)>& feed, bool check,
                  size_t held, size_t trailer, ReadSoFar before);
  bool finish_file();
  bool finish(const uint8_t* tail, size_t tail_size, uint64_t size);

  std::string path_, error_;
  int fd_ = -1;
  bool regular_ = false, own_fd_ = false;
  Ahead ahead_;
  bool went_ahead_ = false;
  static constexpr size_t kMaxHeldAhead = size_t{1} << 20;  // a pipe's string table read ahead
  uint64_t start_ = 0;         // regular files: where the file starts in fd_
  uint64_t size_ = 0;          // regular files: bytes from start_ to the end
  uint64_t records_ = 0;       // regular files: record bytes in all
  uint64_t records_left_ = 0;  // regular files: record bytes still to read
  uint64_t read_ = 0;
  size_t chunk_;
  MwbHeader header_;
  Caps caps_{1, 1, 1, 1, 1};
  std::optional<MwbTrailer> trailer_;  // version 3 on: read at open, or at the end of a pipe
  Checksum sum_{Hash::xxh3};           // of every byte fed so far, header included
  uint64_t file_size_ = 0;             // known after a whole pass
  std::vector<uint8_t> buf_;
};

}  // namespace mwc::replay
