// The state at one point of a trace, as the rule-aware mutator reads it:
// the model run over the ops before that point. The rules compare addresses
// and lengths with the extents of buffers, MRs and windows, and objects with
// each other (same PD, the QP a window belongs to, the MR it lies in, live
// or bound or not); so the guide offers
//   - addresses at and around every extent's start and end (+-1, the end
//     less the op's length, offsets of zero-based windows, 2^64 wrap),
//   - lengths that reach an extent's end from the op's address, +-1,
//   - handles and rkeys chosen by their relation to the objects the op
//     already names: one relation class at random, then one member, so a
//     rare relation (the owner QP among three) is as likely as a common one,
//   - access flags chosen the same way, classed by the rule templates that
//     judge them (a bind's by the first check of kBindAccessChain that
//     fails over the named MR's access, an MR's by mr_access_valid and
//     mr_allows_binding).
// Everything else is drawn as random_field() does. Deterministic: the same
// trace, point and Rng state give the same values.
#pragma once
#include <cstdint>

#include "fuzz/rng.hpp"
#include "refmodel/model.hpp"

namespace mwc::fuzz {

class Guide {
 public:
  // The state before op `at` of t (the model under the verbs profile, run
  // over t.ops[0, at)). One guide at a time per thread: they share a model.
  Guide(const Trace& t, size_t at);
  Guide(const Guide&) = delete;
  Guide& operator=(const Guide&) = delete;

  // Runs op on the state and returns its outcome.
  Outcome step(const Op& op) { return model_.step(op); }
  // Returns object h of kind k as it would be after op (the state stays).
  Model::ObjectView after(const Op& op, HandleKind k, uint32_t h) const;
  // Returns object h of kind k as the state has it.
  Model::ObjectView object(HandleKind k, uint32_t h) const { return model_.object(k, h); }
  // Returns how many objects of kind k the trace may name.
  uint32_t cap(HandleKind k) const { return caps_[static_cast<int>(k)]; }

  // Returns a value for field f of op, given the fields of op that `named`
  // marks (bit per field) and those before f.
  Arg field(const Op& op, size_t f, uint32_t named, Rng& rng) const;
  // Fills every field of op that `keep` does not mark, in order, each by
  // field() seeing the kept ones and those filled before it. Optional
  // numbers and flags keep their default `plain` times in four.
  void fill(Op& op, uint32_t keep, Rng& rng, uint64_t plain = 2) const;
  // Returns an op of code c with every field chosen by field().
  Op make(OpCode c, Rng& rng) const;
  // Returns a handle of kind k chosen by relation to the objects op's
  // fields in `named` name (kNoHandle when the trace may name none).
  uint32_t handle(HandleKind k, const Op& op, uint32_t named, Rng& rng) const;
  // From now on, seven handles in eight are chosen among live objects only
  // (when there are any): for scenarios, whose point is past the objects.
  void prefer_live() { prefer_live_ = true; }

 private:
  struct Obj {
    HandleKind k;
    uint32_t h;
  };
  // Returns the objects op's fields in `named` name (handles, rkeys'
  // targets, addresses' bases); at most kMaxFields.
  size_t named_objects(const Op& op, uint32_t named, Obj* out) const;
  // Returns the relation of (k, h) to the named objects, as a number:
  // equal numbers, alike to the rules.
  uint64_t relation(HandleKind k, uint32_t h, const Obj* named, size_t n) const;
  Arg address(const Op& op, size_t f, uint32_t named, Rng& rng) const;
  Arg length(const Op& op, size_t f, uint32_t named, Rng& rng) const;
  Arg rkey(const Op& op, uint32_t named, Rng& rng) const;
  Arg access(const Op& op, size_t f, uint32_t named, Rng& rng) const;

  Caps caps_;
  Model& model_;
  bool prefer_live_ = false;
};

}  // namespace mwc::fuzz
