// Reads the records of a .mwb file in bounded chunks: a trace of any length
// replays in the memory of one chunk. Works on regular files and on pipes
// (the string table at the end is held back, as its size is in the header).
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "refmodel/trace.hpp"

namespace mwc::replay {

class Reader {
 public:
  // Opens `path` ("-" is standard input) and reads the header. On failure
  // ok() is false and error() says why, as FILE:1:COL: error: ...
  explicit Reader(const std::string& path, size_t chunk = size_t{1} << 20);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Returns the caps the header declares, clamped into [1, kMaxCap].
  const Caps& caps() const { return caps_; }
  // Returns the .mwb version of the file.
  uint16_t version() const { return version_; }
  // Returns whether the input can be read again (a regular file).
  bool rereadable() const { return regular_; }

  // Calls feed(records) with consecutive spans of record bytes until the
  // end; feed returns how many bytes it used (whole records), and the rest
  // comes again at the front of the next span. A truncated last record is
  // dropped. Returns false after a read error (error() says which).
  bool for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed);
  // The same over the record bytes [begin, end) of a regular file, begin
  // being where a record starts.
  bool for_each_chunk(const std::function<size_t(std::span<const uint8_t>)>& feed, uint64_t begin,
                      uint64_t end);
  // Returns the number of record bytes of a regular file.
  uint64_t record_bytes() const { return records_; }
  // Returns the number of record bytes read so far.
  uint64_t bytes_read() const { return read_; }

 private:
  std::string path_, error_;
  int fd_ = -1;
  bool regular_ = false, own_fd_ = false;
  uint64_t records_ = 0;       // regular files: record bytes in all
  uint64_t records_left_ = 0;  // regular files: record bytes still to read
  uint32_t strtab_ = 0;        // pipes: bytes held back at the end
  uint64_t read_ = 0;
  size_t chunk_;
  Caps caps_{1, 1, 1, 1, 1};
  uint16_t version_ = 1;
  std::vector<uint8_t> buf_;
};

}  // namespace mwc::replay
