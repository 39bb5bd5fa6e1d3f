// fuzz_binary: every byte string decodes (with the .mwb header, or as
// header-less records); decode, encode, decode again gives the same trace and
// the same bytes; and the text form round-trips it too.
#include "fuzz/check.hpp"
#include "fuzz/input.hpp"
#include "refmodel/binary_codec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mwc;
  auto r = decode_mwb({data, size});
  const Trace t = std::holds_alternative<Trace>(r) ? std::get<Trace>(std::move(r))
                                                   : decode_records({data, size}, fuzz::kFuzzCaps);
  const auto bytes = encode_mwb(t);
  auto r2 = decode_mwb(bytes);
  fuzz::check(std::holds_alternative<Trace>(r2), "an encoded trace does not decode", &t);
  const Trace& t2 = std::get<Trace>(r2);
  fuzz::check(t2 == t, "decode, encode, decode changes the trace", &t);
  fuzz::check(encode_mwb(t2) == bytes, "encoding a decoded trace changes its bytes", &t);
  auto r3 = parse_text(print_text(t));
  fuzz::check(std::holds_alternative<Trace>(r3), "the text form of a decoded trace does not parse", &t);
  fuzz::check(std::get<Trace>(r3).ops == t.ops, "the text form of a decoded trace has other ops", &t);
  return 0;
}
