// A text file read as chunks of whole lines, for inputs too large to hold
// (a trace of 10^8 ops): memory stays at one chunk however long the file.
#pragma once
#include <cstddef>
#include <string>

#include "util/read_input.hpp"

namespace mwc {

class LineChunks {
 public:
  LineChunks() = default;
  LineChunks(const LineChunks&) = delete;
  LineChunks& operator=(const LineChunks&) = delete;
  ~LineChunks();

  // Opens `path`, whose lines may be up to `max_line` (> 0) bytes. Returns
  // false with `e` set for a folder or a path that cannot be opened.
  bool open(const std::string& path, size_t max_line, InputError& e);
  // Reads descriptor fd (open_input's: closed with this) instead, its first
  // bytes `head` read from it already (to tell a binary input by its magic).
  void adopt(int fd, size_t max_line, std::string head);
  // Reads the next chunk of whole lines, about `target` bytes, into `chunk`;
  // `first_line` is the number of its first line (from 1). Returns false at
  // the end of the file, or on an error (then `e.message` is set and `e`
  // places it: a line longer than max_line, a read error).
  bool next(std::string& chunk, size_t& first_line, InputError& e, size_t target = 4u << 20);

 private:
  int fd_ = -1;
  std::string carry_;  // the start of a line the last read cut
  size_t line_ = 1, max_line_ = 0;
  bool eof_ = false;
};

}  // namespace mwc
