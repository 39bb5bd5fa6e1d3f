#include "replay/engine.hpp"

#include <algorithm>
#include <cstring>

#include "refmodel/text_codec.hpp"

namespace mwc::replay {

void Verdicts::merge(const Verdicts& o) {
  ops += o.ops;
  checked += o.checked;
  mismatches += o.mismatches;
  std::vector<Mismatch> all;
  all.reserve(first.size() + o.first.size());
  std::merge(first.begin(), first.end(), o.first.begin(), o.first.end(), std::back_inserter(all),
             [](const Mismatch& a, const Mismatch& b) { return a.op < b.op; });
  if (all.size() > kKeep) all.resize(kKeep);
  first = std::move(all);
}

Engine::Engine(const Profile& p, int column, const Caps& caps)
    : model_(p), caps_(caps), column_(column) {
  model_.reset(caps);
}

// Returns whether the op record at p (after its code) is this shard's: its
// leading handle, reduced as decode_op reduces it, is.
bool Engine::mine(uint8_t code, const uint8_t* p) const {
  const auto k = mwb::kAnchorKind[code];
  if (k == HandleKind::Buf) return true;
  const uint32_t h = mwb::detail::reduce_handle(mwb::detail::le32(p), k, caps_);
  return filter_.owner[filter_.node_base[static_cast<int>(k)] + h] == filter_.me;
}

[[gnu::always_inline]] inline void Engine::verdict() {
  pending_ = false;
  if (!counts_) return;
  ++v_.ops;
  if (want_ == kUnchecked) return;
  ++v_.checked;
  // Most expectations are the exact outcome: then equal words decide.
  if (want_ != mwb::exact_word(out_)) [[unlikely]]
    check(want_);
}

size_t Engine::feed(std::span<const uint8_t> rec) {
  return filter_.owner ? feed_records<true>(rec) : feed_records<false>(rec);
}

template <bool Sharded>
size_t Engine::feed_records(std::span<const uint8_t> rec) {
  const uint8_t* p = rec.data();
  const uint8_t* const end = p + rec.size();
  while (p < end) {
    const uint8_t code = mwb::kCodeOf[*p];
    const size_t size = mwb::kRecordSize[code];
    if (static_cast<size_t>(end - p) < size) [[unlikely]]
      break;
    if (code < kOpCount) [[likely]] {
      if (pending_) verdict();
      start<Sharded>(code, p);
    } else if (code == mwb::kExpectCode && pending_) {
      // Mostly one fallback clause per op: kept without further ado.
      if ((p[1] & 0x80) && !(seen_ & (kFallback | kSpecific))) [[likely]] {
        seen_ |= kFallback;
        want_ = mwb::pattern_word(p + 2);
      } else {
        take_expect(p + 1);
      }
    }
    p += size;
  }
  // The next feed brings other bytes: keep the pending op's record.
  if (pending_ && rec_) {
    std::memcpy(held_.data(), rec_, mwb::kRecordSize[mwb::kCodeOf[*rec_]]);
    rec_ = nullptr;
  }
  return static_cast<size_t>(p - rec.data());
}

// Runs the op record at p (its code byte) if it is this shard's.
template <bool Sharded>
[[gnu::always_inline]] inline void Engine::start(uint8_t code, const uint8_t* p) {
  ++index_;
  if constexpr (Sharded) {
    pending_ = mine(code, p + 1);
    if (!pending_) return;
    counts_ = filter_.me == 0 || mwb::kAnchorKind[code] != HandleKind::Buf;
  } else {
    pending_ = counts_ = true;
  }
  rec_ = p;
  out_ = run(code, p + 1);
  if (outcomes_) [[unlikely]]
    outcomes_->push_back(out_);
  seen_ = 0;
  want_ = kUnchecked;
}

// Returns the outcome of the op record (p after its code byte) on the
// model, decoded straight into the op's typed view.
[[gnu::always_inline]] inline Outcome Engine::run(uint8_t code, const uint8_t* p) {
  switch (static_cast<OpCode>(code)) {
#define OP(name, kind, summary) \
  case OpCode::name:            \
    return model_.step(mwb::decode_view<args::name>(p, caps_));
    MWC_OPS(OP)
#undef OP
  }
  __builtin_unreachable();
}

// Keeps an expectation of the pending op as the whole-trace decoder would
// (mwb::expectation_kept), and notes the pattern to check: the clause for
// this engine's column, else the fallback.
void Engine::take_expect(const uint8_t* p) {
  if (p[0] & 0x80) {
    if (seen_ & kFallback) return;
    seen_ |= kFallback;
    if (!(seen_ & kSpecific)) want_ = mwb::pattern_word(p + 1);
    return;
  }
  const uint8_t profiles = mwb::expect_profiles(p[0]);
  if (profiles == 0 || (profiles & seen_)) return;
  seen_ |= profiles;
  if (column_ >= 0 && ((profiles >> column_) & 1)) {
    seen_ |= kSpecific;
    want_ = mwb::pattern_word(p + 1);
  }
}


// Checks the pending op's outcome against a pattern that is not its exact
// outcome (a looser pattern, or a mismatch).
void Engine::check(uint64_t word) {
  uint8_t bytes[8];
  std::memcpy(bytes, &word, 8);  // little-endian hosts only
  const Pattern want = mwb::decode_pattern(bytes);
  if (matches(want, out_)) return;
  if (++v_.mismatches > Verdicts::kKeep) return;
  const uint8_t* rec = rec_ ? rec_ : held_.data();
  const auto code = static_cast<OpCode>(mwb::kCodeOf[*rec]);
  Op op = default_op(code);
  mwb::decode_op(code, rec + 1, caps_, op);
  v_.first.push_back(Mismatch{index_ - 1, op_to_text(op), to_text(out_), to_text(want),
                                std::string(rule_desc(out_.rule).id)});
}

const Verdicts& Engine::finish() {
  if (pending_) verdict();
  return v_;
}

}  // namespace mwc::replay
