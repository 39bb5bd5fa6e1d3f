// Splitting a trace into shards that replay independently: objects that
// some op names together (an MR and its PD, a window and the QP that binds
// it, an rkey and its window...) belong to one component; components are
// spread over the shards by op count. Buffers are only declared, never
// changed after, so every shard declares them all and they link nothing.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "refmodel/mwb_record.hpp"
#include "refmodel/op.hpp"
#include "refmodel/trace.hpp"
#include "replay/engine.hpp"

namespace mwc::replay {

// Cache-line aligned: the pieces of a partition are built side by side.
class alignas(64) Partition {
 public:
  // A partition of a trace of `caps` in .mwb version `version`.
  explicit Partition(const Caps& caps, uint16_t version = 1);
  // Notes the objects one op names together.
  void add(const Op& op);
  // Notes every op of a span of whole records; returns the bytes used.
  size_t feed(std::span<const uint8_t> rec);
  // Adds what another partition of the same trace noted (another piece).
  void merge(Partition& other);
  // Returns where, in whole records of `rec`, the pieces of a split into
  // `n` about equal parts start (the first at 0), continuing from a
  // previous call: `at` is the offset of rec in the whole and `total` its
  // size. Returns the bytes used.
  static size_t cut(std::span<const uint8_t> rec, uint64_t at, uint64_t total, int n,
                    std::vector<uint64_t>& starts, uint16_t version);
  // Assigns the components to at most `shards` shards, largest first onto
  // the least loaded; returns how many shards got work.
  int assign(int shards);
  // Returns the filter of shard `me` (valid while the Partition lives).
  ShardFilter filter(int me) const;

 private:
  uint32_t node(HandleKind k, uint32_t h) const { return base_[static_cast<int>(k)] + h; }
  uint32_t find(uint32_t x);
  template <FieldKind K>
  void link(const Arg& a, uint32_t& first);
  void link(HandleKind k, uint32_t h, uint32_t& first);
  static constexpr uint32_t kNone = ~0u;

  Caps caps_;
  const mwb::Format* fmt_;
  std::array<uint32_t, kHandleKinds> base_{};
  std::vector<uint32_t> parent_;
  std::vector<uint64_t> ops_;  // ops led by each node
  std::vector<uint8_t> owner_;
  uint32_t last_ = kNone, root_ = kNone;  // the op's last linked node, and its root
  Op op_;
};

}  // namespace mwc::replay
