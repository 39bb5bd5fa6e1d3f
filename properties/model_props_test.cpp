// Properties of the reference model, over op sequences generated from the
// op table: invariants after every op (stateful), codec round trips,
// determinism, and differential runs that shrink to a minimal sequence.
#include <cstdio>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "adapters/backend.hpp"
#include "compare/run.hpp"
#include "properties/gen.hpp"
#include "refmodel/binary_codec.hpp"
#include "refmodel/model.hpp"
#include "refmodel/mutant.hpp"
#include "refmodel/text_codec.hpp"
#include "replay/fast_path_diff.hpp"

namespace mwc::props {
namespace {

// rapidcheck's model of the system: the ops so far (the reference model is
// itself the system under test; what is checked are its invariants).
struct Ran {
  size_t ops = 0;
};
using Cmd = rc::state::Command<Ran, Model>;

struct OpCommand final : Cmd {
  Op op;
  explicit OpCommand(Op o) : op(o) {}
  void apply(Ran& r) const override { ++r.ops; }
  void run(const Ran&, mwc::Model& m) const override {
    m.step(op);
    const char* broken = m.check_invariants();
    RC_ASSERT(std::string(broken ? broken : "") == "");
  }
  void show(std::ostream& os) const override { os << op_to_text(op); }
};

Model started(const Profile& p) {
  Model m(p);
  m.reset(small_caps());
  for (const Op& op : prologue()) m.step(op);
  return m;
}

RC_GTEST_PROP(ModelState, InvariantsHoldAfterEveryOp, ()) {
  Model m = started(any_profile());
  RC_ASSERT(!m.check_invariants());
  rc::state::check(Ran{}, m, [](const Ran&) {
    return rc::gen::map(gen_op(), [](Op op) -> std::shared_ptr<const Cmd> {
      return std::make_shared<const OpCommand>(op);
    });
  });
}

// The replay's fast path gives Model::step's outcome and rule op by op,
// on generated sequences and on the same rebased to the fast path's shape.
RC_GTEST_PROP(FastPath, AgreesWithTheModelOpByOp, ()) {
  const Trace t = with_prologue(*gen_ops());
  const Profile p = any_profile();
  for (const Trace& u : {t, replay::fast_shaped(t)}) {
    const replay::Divergence d = replay::first_divergence(u, p);
    if (d.op >= 0)
      RC_FAIL("op " + std::to_string(d.op + 1) + " " + op_to_text(u.ops[static_cast<size_t>(d.op)]) +
              " under " + p.name + ": model " + to_text(d.model) + ", fast path " + to_text(d.fast));
  }
}

RC_GTEST_PROP(Codec, TextRoundTrip, ()) {
  const Trace t = with_prologue(*gen_ops());
  auto r = parse_text(print_text(t));
  RC_ASSERT(std::holds_alternative<Trace>(r));
  RC_ASSERT(std::get<Trace>(r) == t);
}

RC_GTEST_PROP(Codec, BinaryRoundTrip, ()) {
  const Trace t = with_prologue(*gen_ops());
  auto r = decode_mwb(encode_mwb(t));
  RC_ASSERT(std::holds_alternative<Trace>(r));
  RC_ASSERT(std::get<Trace>(r) == t);
}

// The one run of a trace on the model (compare/run.hpp).
std::vector<Outcome> outcomes(const Trace& t, const Profile& p) { return run_model(t, p); }

RC_GTEST_PROP(ModelRuns, SameTraceSameOutcomes, ()) {
  const Trace t = with_prologue(*gen_ops());
  const Profile p = any_profile();
  const auto a = outcomes(t, p);
  // A second model, and the trace after a trip through the binary form.
  const auto b = outcomes(std::get<Trace>(decode_mwb(encode_mwb(t))), p);
  RC_ASSERT(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    RC_ASSERT(a[i] == b[i]);
    RC_ASSERT(a[i].rule == b[i].rule);
    RC_ASSERT(a[i].knobs == b[i].knobs);
  }
}

// The model against a backend that can differ from it: each mutant model
// (one real bug switched on, behind the backend interface devices use)
// against its base profile. The property fails for every mutant the
// generated traces can reach, and rapidcheck shrinks the counterexample to
// a few ops; the same seed finds the same one.
TEST(Differential, EveryMutantBackendIsCaughtAndShrunk) {
  size_t caught = 0;
  for (const MutantDesc& m : mutant_descs()) {
    std::string err;
    auto backend = make_backend("mutant:" + std::string(m.name), err);
    ASSERT_TRUE(backend) << err;
    const Profile base = profile(m.base);
    const auto agree = [&] {
      const Trace t = with_prologue(*gen_ops());
      std::vector<Outcome> got;
      backend->run(t, got);
      RC_ASSERT(got == outcomes(t, base));
    };
    rc::detail::TestParams params;
    params.seed = 7;
    params.maxSuccess = 2000;
    const auto r = rc::detail::checkTestable(agree, rc::detail::TestMetadata{}, params);
    if (!r.is<rc::detail::FailureResult>()) {
      std::printf("mutant %s: not reached by 2000 generated traces\n", std::string(m.name).c_str());
      continue;
    }
    ++caught;
    const std::string& ops = r.get<rc::detail::FailureResult>().counterExample.back().second;
    const size_t n = static_cast<size_t>(std::count(ops.begin(), ops.end(), ',')) + 1;
    EXPECT_LE(n, 4u) << m.name << ": not shrunk to a small sequence: " << ops;
    std::printf("mutant %s: caught, shrunk to %zu generated ops\n", std::string(m.name).c_str(), n);
  }
  // With this seed: all but access_partial and wr_bind_no_pd, which need an
  // MR without LOCAL_WRITE under an atomic window, or a bind work request
  // across PDs, that random ops rarely build (the corpus and the fuzzers
  // reach both: mwcheck power).
  EXPECT_GE(caught, 6u) << "the generated traces reach fewer mutants than they did";
}

// Two profiles that differ do diverge, and rapidcheck shrinks the sequence
// to a minimal one; the same seed finds the same one again.
TEST(Differential, DivergenceShrinksToAMinimalSequence) {
  const auto agree = [] {
    const Trace t = with_prologue(*gen_ops());
    RC_ASSERT(outcomes(t, profile(ProfileId::verbs)) == outcomes(t, profile(ProfileId::rxe)));
  };
  rc::detail::TestParams params;
  params.seed = 4;
  params.maxSuccess = 500;
  const auto first = rc::detail::checkTestable(agree, rc::detail::TestMetadata{}, params);
  ASSERT_TRUE(first.is<rc::detail::FailureResult>());
  const auto& f = first.get<rc::detail::FailureResult>();
  ASSERT_FALSE(f.counterExample.empty());
  const std::string& ops = f.counterExample.back().second;
  const size_t n = ops == "[]" ? 0 : static_cast<size_t>(std::count(ops.begin(), ops.end(), ',')) + 1;
  EXPECT_GE(n, 1u) << ops;
  EXPECT_LE(n, 2u) << "not shrunk to a minimal sequence: " << ops;
  const auto again = rc::detail::checkTestable(agree, rc::detail::TestMetadata{}, params);
  ASSERT_TRUE(again.is<rc::detail::FailureResult>());
  EXPECT_EQ(again.get<rc::detail::FailureResult>().counterExample, f.counterExample);
}

}  // namespace
}  // namespace mwc::props
