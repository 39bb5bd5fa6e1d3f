// The binary form of a trace (.mwb), for fuzzing and fast replay.
//
// Layout, all little-endian:
//   header (32 bytes): magic "MWTB", u16 version (1 to 4), u16 reserved,
//                      u32 caps[5] (buffers, PDs, MRs, MWs, QPs),
//                      u32 string-table size
//   records: u8 code, then fixed-size fields. A version pins its codes
//            (mwb_record.hpp, Format): op codes first (ops.def's column 2,
//            never renumbered), then an expectation of the op before it,
//            then a comment. Version 2 adds 12-byte records of the hot ops
//            with their usual outcome folded in, and full records with a
//            fallback `OK` or usual outcome folded into their code.
//   string table: comment texts, `string-table size` bytes
//   trailer (version 3 on, 24 bytes): "MWTE", u32 0, u64 ops, u64 checksum
//            (seed 0) of every byte before it: XXH64 in version 3, XXH3
//            (64-bit) from version 4 on, which sums a file about four
//            times as fast. A file without it was cut short.
//
// Versions 1 to 4 are read; 4 is written unless another is asked for.
//
// decode_records() is total: every byte string decodes to a valid trace
// (codes and values reduced into their ranges, handles modulo caps, a
// truncated last record dropped), so a fuzzer never wastes an execution.
// decode_mwb() is strict about the file around the records: header,
// length and trailer.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "refmodel/checksum.hpp"
#include "refmodel/trace.hpp"

namespace mwc {

inline constexpr uint16_t kMwbVersion = 4;  // the version written
inline constexpr uint16_t kMwbOldestVersion = 1;
inline constexpr size_t kMwbHeaderSize = 32;
inline constexpr size_t kMwbTrailerSize = 24;

// Returns the encoding of a trace in a version of the format.
std::vector<uint8_t> encode_mwb(const Trace& t, uint16_t version = kMwbVersion);

struct DecodeError {
  size_t offset = 0;
  std::string message;
};
// Returns the trace a .mwb file holds; fails on a bad header and (version
// 3 on) on a missing trailer (a cut file) or one that disagrees.
std::variant<Trace, DecodeError> decode_mwb(std::span<const uint8_t> bytes);

// What a .mwb header says (caps as stored, not yet clamped).
struct MwbHeader {
  uint16_t version = 0;
  Caps caps{};
  uint32_t strtab = 0;  // string-table bytes
};
// Returns the header at the start of `bytes`, or what is wrong with it.
std::variant<MwbHeader, DecodeError> decode_header(std::span<const uint8_t> bytes);
// Returns whether files of a version end with the trailer.
constexpr bool has_trailer(uint16_t version) { return version >= 3; }
// Returns the hash of a version's trailer.
constexpr Hash trailer_hash(uint16_t version) { return version >= 4 ? Hash::xxh3 : Hash::xxh64; }
// Returns the error of a file of `size` bytes too short for what its header
// says follows the records (string table, trailer): a file cut short.
std::optional<DecodeError> check_size(const MwbHeader& h, uint64_t size);

// The trailer (version 3 on).
struct MwbTrailer {
  uint64_t ops = 0, checksum = 0;
};
// Appends a trailer.
void encode_trailer(const MwbTrailer& t, std::vector<uint8_t>& out);
// Returns the trailer in the last kMwbTrailerSize bytes of a file of
// `size` bytes, or the error when they hold none (the file was cut).
std::variant<MwbTrailer, DecodeError> decode_trailer(std::span<const uint8_t, kMwbTrailerSize> last,
                                                     uint64_t size);
// Returns the error of the trailer of a file of `size` bytes when `sum`,
// the checksum of the bytes before it, is not the one it holds, or nothing.
std::optional<DecodeError> check_checksum(const MwbTrailer& t, uint64_t size, uint64_t sum);
// Returns the error of the trailer of a file of `size` bytes when it does
// not count `ops` ops, or nothing.
std::optional<DecodeError> check_ops(const MwbTrailer& t, uint64_t size, uint64_t ops);
// Returns the trace that records (no header) of a version decode to under
// `caps`, with comment texts taken from `strings`. Never fails.
Trace decode_records(std::span<const uint8_t> records, const Caps& caps,
                     std::span<const uint8_t> strings = {}, uint16_t version = 1);
// Returns the size in bytes of an op's full record, code byte included.
size_t record_size(OpCode c);
// Returns the size in bytes of the records of op and its expectations in a version's form.
size_t records_size(const Op& op, std::span<const Expectation> es, uint16_t version = kMwbVersion);

}  // namespace mwc
