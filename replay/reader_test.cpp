#include "replay/reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <gtest/gtest.h>

#include "refmodel/binary_codec.hpp"
#include "refmodel/test_util.hpp"
#include "replay/engine.hpp"
#include "replay/replay.hpp"

namespace mwc::replay {
namespace {
namespace fs = std::filesystem;

const std::string kTrace =
    "# a comment, so the string table is not empty\n"
    "buf b0 len=4096 => OK\nalloc_pd p0 => OK\n"
    "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_READ|REMOTE_WRITE|MW_BIND => OK\n"
    "create_qp q0 pd=p0 => OK\n"
    "peer_write q0 rkey=m0 addr=m0+8 len=16 => IBV_WC_SUCCESS\n"
    "peer_read q0 rkey=m0 addr=m0 len=16 => IBV_WC_SUCCESS\n";

std::string write_file(const std::string& name, std::span<const uint8_t> bytes) {
  const std::string path = (fs::temp_directory_path() / ("mwcheck_reader_test_" + name)).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// What a reader of `path` (or of a pipe carrying `bytes`) makes of a file:
// the record bytes it fed, and its error.
struct Read {
  uint64_t fed = 0;
  std::string error;
  std::vector<uint8_t> bytes;  // those fed, when kept
  bool ahead = false;          // Reader::read_ahead()
};
Read read_all(Reader& r) {
  Read out;
  if (r.ok()) r.for_each_chunk([&](std::span<const uint8_t> rec) { out.fed += rec.size(); return rec.size(); });
  out.error = r.error();
  return out;
}
// Reads as a slow feed does: whole 12-byte multiples only (the last span
// whole), a millisecond a call against the microseconds of reading a few
// bytes; keeps the bytes.
Read read_slowly(Reader& r, uint64_t record_bytes) {
  Read out;
  if (r.ok())
    r.for_each_chunk([&](std::span<const uint8_t> rec) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const size_t take = out.bytes.size() + rec.size() == record_bytes ? rec.size() : rec.size() / 12 * 12;
      out.bytes.insert(out.bytes.end(), rec.begin(), rec.begin() + static_cast<long>(take));
      return take;
    });
  out.fed = out.bytes.size();
  out.error = r.error();
  out.ahead = r.read_ahead();
  return out;
}
Read read_path(const std::string& path, size_t chunk = 16, Ahead ahead = Ahead::never) {
  Reader r(path, chunk, ahead);
  return read_all(r);
}
// Reads `bytes` as standard input from a pipe (what `cat f | mwcheck replay -` does).
Read read_pipe(const std::vector<uint8_t>& bytes, size_t chunk = 16, Ahead ahead = Ahead::never,
               const std::function<Read(Reader&)>& how = read_all) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    for (size_t at = 0; at < bytes.size();) {
      const ssize_t n = ::write(fds[1], bytes.data() + at, std::min<size_t>(7, bytes.size() - at));
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  const int saved = ::dup(0);
  ::dup2(fds[0], 0);
  ::close(fds[0]);
  Read out;
  {
    Reader r("-", chunk, ahead);
    out = how(r);
  }
  ::dup2(saved, 0);
  ::close(saved);
  writer.join();
  return out;
}

uint64_t records_in(const std::vector<uint8_t>& mwb) {
  const auto h = std::get<MwbHeader>(decode_header(mwb));
  return mwb.size() - kMwbHeaderSize - h.strtab - (has_trailer(h.version) ? kMwbTrailerSize : 0);
}

TEST(Reader, FeedsTheRecordsOfEveryVersionFromFilesAndPipes) {
  const Trace t = testing::parse_or_fail(kTrace);
  for (const uint16_t version : {uint16_t{1}, uint16_t{2}, uint16_t{3}, uint16_t{4}}) {
    const auto bytes = encode_mwb(t, version);
    const std::string path = write_file("v" + std::to_string(version) + ".mwb", bytes);
    for (const Read& r :
         {read_path(path), read_path(path, 16, Ahead::always), read_pipe(bytes), read_pipe(bytes, 16, Ahead::always)}) {
      EXPECT_EQ(r.error, "") << version;
      EXPECT_EQ(r.fed, records_in(bytes)) << version;
    }
  }
}

// Version 3 on: a file cut anywhere is an error naming the file and the
// byte where it ends, whether read from a file (at once) or a pipe (at its
// end).
TEST(Reader, FilesWithATrailerCutShortAreErrors) {
  const auto bytes = encode_mwb(testing::parse_or_fail(kTrace), kMwbVersion);
  for (size_t cut = kMwbHeaderSize; cut < bytes.size(); ++cut) {
    const std::vector<uint8_t> part(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    const std::string path = write_file("cut.mwb", part);
    const std::string want = ":1:" + std::to_string(cut + 1) + ": error: truncated at byte " +
                             std::to_string(cut);
    {
      Reader r(path);
      EXPECT_FALSE(r.ok()) << cut;  // refused before any record is fed
      EXPECT_NE(r.error().find(path + want), std::string::npos) << r.error();
    }
    for (const Ahead ahead : {Ahead::never, Ahead::always}) {
      const Read piped = read_pipe(part, 16, ahead);
      EXPECT_NE(piped.error.find("-" + want), std::string::npos) << cut << ": " << piped.error;
    }
  }
}

// Each version's own hash (XXH64 in 3, XXH3 in 4) checks its bytes.
TEST(Reader, BytesNotAsWrittenAreErrorsInEveryVersionWithATrailer) {
  for (const uint16_t version : {uint16_t{3}, uint16_t{4}}) {
    auto bytes = encode_mwb(testing::parse_or_fail(kTrace), version);
    bytes[kMwbHeaderSize + 3] ^= 1;  // a record's field
    const std::string path = write_file("changed.mwb", bytes);
    for (const Read& r : {read_path(path), read_path(path, 16, Ahead::always), read_pipe(bytes),
                          read_pipe(bytes, 16, Ahead::always)}) {
      EXPECT_NE(r.error.find(":1:" + std::to_string(bytes.size() - 8 + 1) + ": error: checksum mismatch"),
                std::string::npos)
          << version << ": " << r.error;
    }
    // A trailer that counts other ops (and sums the bytes before it as the
    // version does): replay says so.
    bytes = encode_mwb(testing::parse_or_fail(kTrace), version);
    std::vector<uint8_t> body(bytes.begin(), bytes.end() - kMwbTrailerSize);
    encode_trailer({7, checksum(body, trailer_hash(version))}, body);
    const ReplayRun run = replay_file(write_file("count.mwb", body), profile(ProfileId::verbs), 1, 1);
    EXPECT_NE(run.error.find("error: the trailer counts 7 ops, the records hold 6"), std::string::npos)
        << version << ": " << run.error;
  }
}

// A feed may leave more than a record (here, bytes up to a multiple of 40
// only, and nothing at every third call): what it left comes again at the
// front of the next span, in chunks of any size, read ahead or not.
TEST(Reader, WhatAFeedLeavesComesAgain) {
  const auto bytes = encode_mwb(testing::parse_or_fail(kTrace), kMwbVersion);
  const std::string path = write_file("left.mwb", bytes);
  const std::vector<uint8_t> records(bytes.begin() + kMwbHeaderSize,
                                     bytes.begin() + static_cast<long>(kMwbHeaderSize + records_in(bytes)));
  for (const size_t chunk : {size_t{1}, size_t{7}, size_t{16}, size_t{100}, size_t{1} << 20})
    for (const Ahead ahead : {Ahead::never, Ahead::always}) {
      Reader r(path, chunk, ahead);
      std::vector<uint8_t> got;
      int calls = 0;
      ASSERT_TRUE(r.for_each_chunk([&](std::span<const uint8_t> rec) {
        // The bytes fed so far are the file's, and this span goes on from them.
        EXPECT_TRUE(std::equal(rec.begin(), rec.end(), records.begin() + static_cast<long>(got.size())));
        const size_t total = got.size() + rec.size();
        size_t take = 0;
        if (total == records.size()) take = rec.size();  // the last span: all of it
        else if (++calls % 3 != 0) take = total / 40 * 40 - std::min(got.size(), total / 40 * 40);
        got.insert(got.end(), rec.begin(), rec.begin() + static_cast<long>(take));
        return take;
      })) << r.error();
      EXPECT_EQ(got, records) << chunk << (ahead == Ahead::always ? " read ahead" : "");
      EXPECT_EQ(r.bytes_read(), records.size());
    }
}

// Ahead::when_behind: a file or a pipe whose feed falls behind the reading
// goes on read ahead from there, the bytes the feed left carried over and
// the checksum going on from the bytes summed before (a pipe's last bytes,
// its trailer, summed by none).
TEST(Reader, AFeedBehindTheReadingGetsTheRestReadAhead) {
  std::string text = kTrace;
  for (int i = 0; i < 60; ++i) text += "peer_read q0 rkey=m0 addr=m0+" + std::to_string(i) + " len=8 => IBV_WC_SUCCESS\n";
  const auto bytes = encode_mwb(testing::parse_or_fail(text), kMwbVersion);
  const uint64_t n = records_in(bytes);
  const std::vector<uint8_t> records(bytes.begin() + kMwbHeaderSize, bytes.begin() + static_cast<long>(kMwbHeaderSize + n));
  ASSERT_GT(n / 7, uint64_t{4 * Reader::kProbeChunks});
  auto changed = bytes;
  changed[kMwbHeaderSize + n - 2] ^= 1;  // in the last record: read ahead by then
  const auto slowly = [&](Reader& r) { return read_slowly(r, n); };
  for (const bool intact : {true, false}) {
    const auto& file = intact ? bytes : changed;
    const std::string path = write_file("behind.mwb", file);
    Reader reader(path, 7, Ahead::when_behind);
    for (const Read& r : {slowly(reader), read_pipe(file, 7, Ahead::when_behind, slowly)}) {
      EXPECT_TRUE(r.ahead);
      if (intact) {
        EXPECT_EQ(r.error, "");
        EXPECT_EQ(r.bytes, records);
      } else {
        // At the trailer's checksum: the bytes read before count in the size.
        EXPECT_NE(r.error.find(":1:" + std::to_string(file.size() - 8 + 1) + ": error: checksum mismatch"),
                  std::string::npos)
            << r.error;
      }
    }
  }
  // A pipe cut short is known at its end, counting the bytes read before.
  const std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 3);
  const Read r = read_pipe(cut, 7, Ahead::when_behind, slowly);
  EXPECT_TRUE(r.ahead);
  EXPECT_NE(r.error.find("-:1:" + std::to_string(cut.size() + 1) + ": error: truncated at byte " +
                         std::to_string(cut.size())),
            std::string::npos)
      << r.error;
}

// Standard input redirected from a regular file is read from where it
// stands, as a pipe is: `mwcheck replay - < f.mwb`, even after something
// read the start of the file.
TEST(Reader, StandardInputFromARegularFile) {
  for (const uint16_t version : {uint16_t{2}, uint16_t{3}, uint16_t{4}})
  for (const Ahead ahead : {Ahead::never, Ahead::always}) {
    const auto bytes = encode_mwb(testing::parse_or_fail(kTrace), version);
    std::vector<uint8_t> prefixed = {'j', 'u', 'n', 'k', '\n'};
    prefixed.insert(prefixed.end(), bytes.begin(), bytes.end());
    const std::string path = write_file("stdin.mwb", prefixed);
    const int saved = ::dup(0);
    const int fd = ::open(path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::lseek(fd, 5, SEEK_SET), 5);
    ::dup2(fd, 0);
    ::close(fd);
    Read r;
    bool rereadable = true;
    {
      Reader reader("-", size_t{1} << 20, ahead);
      rereadable = reader.rereadable();
      r = read_all(reader);
    }
    ::dup2(saved, 0);
    ::close(saved);
    EXPECT_EQ(r.error, "") << version;
    // The string table is no records (a reader that took the file to start
    // at 0 fed 5 bytes of it).
    EXPECT_EQ(r.fed, records_in(bytes)) << version;
    EXPECT_FALSE(rereadable) << "'-' names no file to open again";
  }
}

}  // namespace
}  // namespace mwc::replay
