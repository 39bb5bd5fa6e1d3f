// The binary form of a trace (.mwb), for fuzzing and fast replay.
//
// Layout, all little-endian:
//   header (32 bytes): magic "MWTB", u16 version (1), u16 reserved,
//                      u32 caps[5] (buffers, PDs, MRs, MWs, QPs),
//                      u32 string-table size
//   records: u8 code, then fixed-size fields. Codes below kOpCount are ops
//            (fields packed by kind, in op-table order); kOpCount is an
//            expectation of the op before it; kOpCount+1 is a comment.
//   string table: the last `string-table size` bytes (comment texts)
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

inline constexpr uint16_t kMwbVersion = 1;
inline constexpr size_t kMwbHeaderSize = 32;

// Returns the encoding of a trace.
std::vector<uint8_t> encode_mwb(const Trace& t);

struct DecodeError {
  size_t offset = 0;
  std::string message;
};
// Returns the trace a .mwb file holds; fails only on a bad header.
std::variant<Trace, DecodeError> decode_mwb(std::span<const uint8_t> bytes);
// Returns the trace that records (no header) decode to under `caps`, with
// comment texts taken from `strings`. Never fails.
Trace decode_records(std::span<const uint8_t> records, const Caps& caps,
                     std::span<const uint8_t> strings = {});
// Returns the size in bytes of an op's record, code byte included.
size_t record_size(OpCode c);

}  // namespace mwc
