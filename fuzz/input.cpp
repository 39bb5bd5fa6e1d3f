#include "fuzz/input.hpp"

#include <algorithm>
#include <cstring>

#include "refmodel/binary_codec.hpp"

namespace mwc::fuzz {

Trace input_trace(std::span<const uint8_t> b) {
  Caps caps = kFuzzCaps;
  uint16_t version = 1;  // header-less bytes are version 1 records
  std::span<const uint8_t> records = b;
  if (b.size() >= kMwbHeaderSize && std::memcmp(b.data(), "MWTB", 4) == 0) {
    for (int k = 0; k < kHandleKinds; ++k) {
      uint32_t c;
      std::memcpy(&c, b.data() + 8 + 4 * k, 4);  // little-endian hosts, as the codec
      caps[k] = std::clamp<uint32_t>(c, 1, kFuzzCapMax);
    }
    // The trailer and the string table (comment texts) at the end are no
    // records; neither is checked: a fuzzer's bytes need not agree with them.
    uint32_t strtab;
    std::memcpy(&strtab, b.data() + 28, 4);
    std::memcpy(&version, b.data() + 4, 2);
    records = b.subspan(kMwbHeaderSize);
    if (has_trailer(version))
      records = records.first(records.size() - std::min(kMwbTrailerSize, records.size()));
    records = records.first(records.size() - std::min<size_t>(strtab, records.size()));
  }
  Trace t = decode_records(records, caps, {}, version);
  t.expects.clear();
  t.comments.clear();
  if (t.ops.size() > kFuzzMaxOps) t.ops.resize(kFuzzMaxOps);
  return t;
}

std::vector<uint8_t> input_bytes(const Trace& t, size_t max_size) {
  Trace c;
  c.caps = t.caps;
  size_t size = kMwbHeaderSize + (has_trailer(kMwbVersion) ? kMwbTrailerSize : 0), n = 0;
  while (n < t.ops.size() && size + records_size(t.ops[n], {}) <= max_size)
    size += records_size(t.ops[n++], {});
  c.ops.assign(t.ops.begin(), t.ops.begin() + static_cast<std::ptrdiff_t>(n));
  return encode_mwb(c);
}

Trace fuzz_form(const Trace& t) {
  return input_trace(input_bytes(t));
}

}  // namespace mwc::fuzz
