#include "fuzz/input.hpp"

#include <gtest/gtest.h>

#include "fuzz/mutator.hpp"
#include "refmodel/binary_codec.hpp"
#include "refmodel/test_util.hpp"

namespace mwc::fuzz {
namespace {

// Returns whether every handle an op names is inside the trace's caps.
bool handles_in_caps(const Trace& t) {
  for (const Op& op : t.ops) {
    const auto& d = op_desc(op.code);
    for (size_t f = 0; f < d.fields.size(); ++f)
      if (is_handle(d.fields[f].kind) && op.a[f].h != kNoHandle &&
          op.a[f].h >= t.caps[static_cast<int>(handle_kind(d.fields[f].kind))])
        return false;
  }
  return true;
}

TEST(FuzzInput, AnyBytesAreATraceWithinTheFuzzCaps) {
  Rng rng(7);
  for (int n = 0; n < 500; ++n) {
    std::vector<uint8_t> bytes(rng.below(600));
    for (auto& b : bytes) b = static_cast<uint8_t>(rng.next());
    if (n % 2 && bytes.size() >= 6) std::copy_n("MWTB\x01\x00", 6, bytes.begin());  // a header
    const Trace t = input_trace(bytes);
    EXPECT_TRUE(handles_in_caps(t));
    for (uint32_t c : t.caps) EXPECT_LE(c, kFuzzCapMax);
    EXPECT_LE(t.ops.size(), kFuzzMaxOps);
    EXPECT_TRUE(t.expects.empty());
  }
}

TEST(FuzzInput, TheBinaryFormOfACorpusTraceKeepsItsOps) {
  for (const auto& f : testing::corpus_files()) {
    const Trace t = testing::parse_or_fail(testing::read_file(f));
    const Trace u = input_trace(encode_mwb(t));
    EXPECT_EQ(u.ops, t.ops) << f;  // the corpus stays inside the fuzz caps
    EXPECT_EQ(fuzz_form(t), u) << f;
  }
}

TEST(FuzzInput, BytesAreCutAtWholeOpsToFit) {
  Trace t;
  t.caps = kFuzzCaps;
  t.ops.assign(10, default_op(OpCode::alloc_pd));
  const size_t one = record_size(OpCode::alloc_pd);
  const size_t frame = kMwbHeaderSize + kMwbTrailerSize;  // the file around the records
  const auto bytes = input_bytes(t, frame + 3 * one + 1);
  EXPECT_EQ(bytes.size(), frame + 3 * one);
  EXPECT_EQ(input_trace(bytes).ops.size(), 3u);
}

}  // namespace
}  // namespace mwc::fuzz
