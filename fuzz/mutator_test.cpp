#include "fuzz/mutator.hpp"

#include <set>

#include <gtest/gtest.h>

#include "fuzz/input.hpp"
#include "refmodel/test_util.hpp"

namespace mwc::fuzz {
namespace {

Trace corpus_trace(size_t i) {
  const auto files = testing::corpus_files();
  return fuzz_form(testing::parse_or_fail(testing::read_file(files.at(i % files.size()))));
}

TEST(Mutator, SameSeedSameEdits) {
  Trace a = corpus_trace(10), b = a;
  Rng ra(42), rb(42);
  for (int i = 0; i < 50; ++i) {
    mutate(a, ra, kFuzzMaxOps);
    mutate(b, rb, kFuzzMaxOps);
  }
  EXPECT_EQ(a, b);
  Trace c = corpus_trace(10);
  Rng rc(43);
  for (int i = 0; i < 50; ++i) mutate(c, rc, kFuzzMaxOps);
  EXPECT_NE(a, c);
}

// Mutants are canonical fuzz inputs: what the mutator makes survives the
// trip through bytes unchanged, so libFuzzer's corpus holds what was tested.
TEST(Mutator, MutantsSurviveTheTripThroughBytes) {
  Rng rng(1);
  for (int n = 0; n < 300; ++n) {
    Trace t = corpus_trace(n);
    for (int i = 0; i < 5; ++i) mutate(t, rng, 40);
    EXPECT_LE(t.ops.size(), 40u);
    EXPECT_EQ(input_trace(input_bytes(t)), t) << print_text(t);
    const Trace x = crossover(t, corpus_trace(n + 7), rng, 40);
    EXPECT_LE(x.ops.size(), 40u);
    EXPECT_EQ(input_trace(input_bytes(x)), x) << print_text(x);
  }
}

TEST(Mutator, RandomOpsCoverTheOpTableAndItsValues) {
  Rng rng(3);
  std::set<int> codes;
  std::set<uint8_t> addr_tags, rkey_tags;
  for (int n = 0; n < 5000; ++n) {
    const Op op = random_op(kFuzzCaps, rng);
    codes.insert(static_cast<int>(op.code));
    const auto& d = op_desc(op.code);
    for (size_t f = 0; f < d.fields.size(); ++f) {
      if (d.fields[f].kind == FieldKind::Addr) addr_tags.insert(op.a[f].tag);
      if (d.fields[f].kind == FieldKind::Rkey) rkey_tags.insert(op.a[f].tag);
    }
  }
  EXPECT_EQ(codes.size(), static_cast<size_t>(kOpCount));
  EXPECT_EQ(addr_tags.size(), 4u);
  EXPECT_EQ(rkey_tags.size(), 4u);
}

TEST(Mutator, CrossoverTakesTheLargerCaps) {
  Trace a, b;
  a.caps = {1, 4, 1, 1, 1};
  b.caps = {3, 1, 1, 2, 1};
  Rng rng(5);
  EXPECT_EQ(crossover(a, b, rng, 10).caps, (Caps{3, 4, 1, 2, 1}));
}

}  // namespace
}  // namespace mwc::fuzz
