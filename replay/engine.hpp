// The replay engine: runs a stream of .mwb records on the reference model
// (Model::step, the same code `mwcheck run` uses), its hot ops through the
// NIC-shaped fast path derived from the same rules (fast_path.hpp), and
// checks every op against the trace's expectations, keeping only the
// current op: memory depends on the model's tables, never on the trace's
// length.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "refmodel/binary_codec.hpp"
#include "compare/expectations.hpp"
#include "refmodel/model.hpp"
#include "refmodel/mwb_record.hpp"
#include "replay/fast_path.hpp"
#include "replay/usual_batch.hpp"

namespace mwc::replay {


// What a replay found. Mismatches beyond the first kKeep are counted only.
struct Verdicts {
  static constexpr size_t kKeep = 1000;
  uint64_t ops = 0, checked = 0, mismatches = 0;
  std::vector<Mismatch> first;  // in op order
  // Adds another shard's verdicts of the same trace (ops in op order).
  void merge(const Verdicts& o);
};

// Which ops one engine runs when a trace is split into shards: the op's
// leading handle names its shard (owner[node_base[kind] + handle]). Ops led
// by a buffer run in every shard and are counted by shard 0 only.
struct ShardFilter {
  const uint8_t* owner = nullptr;
  std::array<uint32_t, kHandleKinds> node_base{};
  uint8_t me = 0;
};

// Cache-line aligned: engines of a sharded replay sit side by side and each
// writes its state every op.
class alignas(64) Engine {
 public:
  // `column` is the profile column of the expectations to check (-1: the
  // fallback clauses only, for a knob-adjusted profile); `version` the
  // .mwb version of the records fed.
  Engine(const Profile& p, int column, const Caps& caps, uint16_t version = kMwbVersion);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  // Runs only this shard's ops.
  void set_filter(const ShardFilter& f) { filter_ = f; }
  // Appends each run op's outcome to `out` (tests compare them with run's).
  void record_outcomes(std::vector<Outcome>* out) { outcomes_ = out; }
  // Checks a run of compact records eight at a time (usual_batch.hpp),
  // where the processor can, once `after` of them passed one at a time
  // (kBatchAfter unless set: most runs of the default mix are shorter, and
  // a batch answers later than a record); kNever: one at a time only.
  // Tests set 0 to take every run through it.
  static constexpr size_t kBatchAfter = 24, kNever = SIZE_MAX;
  void batch_records(size_t after) { batch_after_ = packs_ && usual_batch_available() ? after : kNever; }
  // Loads a batch's words as `loads` says (faster_batch_loads() unless
  // set: tests set both).
  void batch_loads(BatchLoads loads) { usual_[0].loads = usual_[1].loads = loads; }
  // Runs a batch on `isa` (best_batch_isa() unless set: tests set each
  // the processor has; batch_isa_available(isa) must hold).
  void batch_isa(BatchIsa isa) { usual_[0].isa = usual_[1].isa = isa; }

  // Runs the whole records in `rec`; returns how many bytes they take (a
  // record cut at the end waits for the next call).
  size_t feed(std::span<const uint8_t> rec);
  // Checks the last op; returns the verdicts of everything fed.
  const Verdicts& finish();
  // Returns how many ops the fast path decided.
  uint64_t fast_ops() const { return fast_.hits() + compact_hits_; }

 private:
  // The record loop, for an engine that runs every op or only its shard's.
  template <bool Sharded, bool V2>
  size_t feed_records(std::span<const uint8_t> rec);
  template <bool Sharded>
  bool start(const uint8_t* p, uint64_t want, uint32_t seen);
  void compact(uint8_t code, const uint8_t* p);
  template <bool V2>
  Outcome run(uint8_t code, const uint8_t* p);
  template <bool Folded>
  const uint8_t* run_usual(const uint8_t* p, const uint8_t* end, uint64_t& passed);
  template <bool Folded>
  void hold_usual(const uint8_t* p);
  void take_expect(const uint8_t* p);
  template <bool Sharded>
  void verdict();
  [[gnu::noinline]] void check(uint64_t meaning);
  bool mine(const uint8_t* p) const;

  Model model_;
  Caps caps_;
  const mwb::Format* fmt_;
  FastPath fast_;
  uint64_t compact_hits_ = 0;
  // The record loop's lanes (KeyLane: where a key's check words start, the
  // bytes they take, the op's right), bare ([0]) and folded ([1]).
  std::array<std::array<KeyLane, kKeyLanes>, 2> lanes_{};
  // What the batch reads, bare ([0]) and folded ([1]).
  std::array<UsualTables, 2> usual_{};
  size_t batch_after_ = kNever;
  bool packs_ = false;  // the compact codes' bytes are consecutive (UsualTables::rbits)
  // By record code, for a full record: its op, and the meaning word of the
  // expectation folded into the code (mwb::meaning_of_pattern; kUnchecked:
  // none), so that neither is a branch on the code (which code comes next
  // is not predictable).
  std::array<uint8_t, 256> full_op_{};
  std::array<uint64_t, 256> fold_want_{};
  std::array<uint32_t, 256> fold_seen_{};  // kFallback where a folded expectation is
  int column_;
  ShardFilter filter_;
  std::vector<Outcome>* outcomes_ = nullptr;
  Verdicts v_;
  // The op before the next op record: its outcome waits for the
  // expectations that follow it. Its record is decoded again only to name
  // it in a mismatch: rec_ points at it in the bytes fed or, when a feed
  // ended before its verdict, is null and held_ holds it.
  const uint8_t* rec_ = nullptr;
  std::array<uint8_t, mwb::kMaxRecordSize> held_{};
  Outcome out_;
  uint64_t index_ = 0;  // ops seen, this one included
  bool pending_ = false;  // an op of this shard awaits its verdict
  bool counts_ = false;   // and this shard counts it
  // The op's expectation clauses kept so far: the union of their profiles
  // (bits 0-7), whether a fallback came and whether one named this column
  // (all the one-clause-per-profile rule needs); and the pattern to check
  // as the meaning word of the outcomes it describes exactly
  // (mwb::meaning_of_pattern), or kUnchecked.
  static constexpr uint32_t kFallback = 1u << 8, kSpecific = 1u << 9;
  static constexpr uint64_t kUnchecked = ~uint64_t{0};
  uint32_t seen_ = 0;
  uint64_t want_ = kUnchecked;
};

}  // namespace mwc::replay
