// The binary form of a trace (.mwb), for fuzzing and fast replay.
//
// Layout, all little-endian:
//   header (32 bytes): magic "MWTB", u16 version (1 or 2), u16 reserved,
//                      u32 caps[5] (buffers, PDs, MRs, MWs, QPs),
//                      u32 string-table size
//   records: u8 code, then fixed-size fields. Codes below kOpCount are ops
//            (fields packed by kind, in op-table order); kOpCount is an
//            expectation of the op before it; kOpCount+1 is a comment.
//            Version 2 adds 12-byte records of the hot ops with their
//            usual outcome folded in (mwb_record.hpp, "version 2").
//   string table: the last `string-table size` bytes (comment texts)
//
// Both versions are read; version 2 is written unless 1 is asked for.
//
// decode_records() is total: every byte string decodes to a valid trace
// (codes and values reduced into their ranges, handles modulo caps, a
// truncated last record dropped), so a fuzzer never wastes an execution.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "refmodel/trace.hpp"

namespace mwc {

inline constexpr uint16_t kMwbVersion = 2;  // the version written
inline constexpr uint16_t kMwbOldestVersion = 1;
inline constexpr size_t kMwbHeaderSize = 32;

// Returns the encoding of a trace in a version of the format.
std::vector<uint8_t> encode_mwb(const Trace& t, uint16_t version = kMwbVersion);

struct DecodeError {
  size_t offset = 0;
  std::string message;
};
// Returns the trace a .mwb file holds; fails only on a bad header.
std::variant<Trace, DecodeError> decode_mwb(std::span<const uint8_t> bytes);
// Returns the trace that records (no header) of a version decode to under
// `caps`, with comment texts taken from `strings`. Never fails.
Trace decode_records(std::span<const uint8_t> records, const Caps& caps,
                     std::span<const uint8_t> strings = {}, uint16_t version = 1);
// Returns the size in bytes of an op's full record, code byte included.
size_t record_size(OpCode c);
// Returns the size in bytes of the records of op and its expectations in a version's form.
size_t records_size(const Op& op, std::span<const Expectation> es, uint16_t version = kMwbVersion);

}  // namespace mwc
