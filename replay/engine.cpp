#include "replay/engine.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "refmodel/text_codec.hpp"

namespace mwc::replay {

// usual_batch() reads the check and QP words as one qword each.
static_assert(sizeof(FastPath::HotSlot) == 8 && sizeof(FastPath::QpWord) == 8);
static_assert(kBatchOps == mwb::kCompactOpCount, "usual_batch() knows the compact ops by their number");

// By record code, for a full record: its op and the meaning word of the
// expectation folded into the code (kUnchecked: none) with kFallback
// where there is one. The engine copies them (Engine::full_op_ ...).
struct CodeTables {
  std::array<uint8_t, 256> op{};
  std::array<uint64_t, 256> want{};
  std::array<uint32_t, 256> seen{};
};
constexpr CodeTables code_tables(uint64_t unchecked, uint32_t fallback) {
  CodeTables t;
  t.want.fill(unchecked);
  for (int c = 0; c < 256; ++c)
    if (c < kOpCount || (c >= mwb::kFoldBase && c < mwb::kCodeCount2)) {
      uint64_t word = unchecked;
      t.op[static_cast<size_t>(c)] = static_cast<uint8_t>(mwb::full_op(static_cast<uint8_t>(c), &word));
      t.want[static_cast<size_t>(c)] = word == unchecked ? word : mwb::meaning_of_pattern(word);
      t.seen[static_cast<size_t>(c)] = word == unchecked ? 0 : fallback;
    }
  return t;
}

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

Engine::Engine(const Profile& p, int column, const Caps& caps, uint16_t version)
    : model_(p), caps_(caps), fmt_(&mwb::format(version)), fast_((model_.reset(caps), model_), caps),
      column_(column) {
  // The record loop's tables: full records' ops and folded words (the
  // same for every engine, made once by the compiler), and KeyLane.
  static constexpr CodeTables kCodes = code_tables(kUnchecked, kFallback);
  full_op_ = kCodes.op;
  fold_want_ = kCodes.want;
  fold_seen_ = kCodes.seen;
  const mwb::Format& f = *fmt_;
  for (int b = 0; b < 256; ++b) {
    const uint8_t c = f.code_of[b];
    if (!f.has_compact() || !mwb::is_compact(c)) continue;
    const unsigned folded = (c - mwb::kCompactBase) & 1;
    const uint8_t rbit = FastPath::bit(mwb::kCompactRight[c - mwb::kCompactBase]);
    for (int k = 0; k < 4; ++k) {
      const RkeyBase kb = mwb::kCompactKey[k];
      const HandleKind hk = kb == RkeyBase::Mr ? HandleKind::Mr : HandleKind::Mw;
      const uint32_t count = kb == RkeyBase::MwPrev ? 0 : caps_[static_cast<int>(hk)];
      lanes_[folded][key_lane(static_cast<uint32_t>(k << 28 | b))] =
          KeyLane{fast_.hot_view().slots + fast_.slot_of(kb, 0), 8 * count, rbit};
    }
  }
  // The batch's tables, when the compact codes' bytes follow the first's.
  const uint8_t first = f.byte_of[mwb::kCompactBase];
  packs_ = f.has_compact();
  for (int i = 0; i < 2 * mwb::kCompactOpCount; ++i) {
    const uint8_t b = f.byte_of[mwb::kCompactBase + i];
    packs_ = packs_ && b == first + i;
    for (UsualTables& u : usual_) u.rbits[static_cast<size_t>(i)] = FastPath::bit(mwb::kCompactRight[i]);
  }
  for (int folded = 0; folded < 2; ++folded) {
    UsualTables& u = usual_[folded];
    u.first_byte = first;
    take_lanes(u, lanes_[folded].data());
    u.qps = fast_.hot_view().qps;
    u.nqps = caps_[static_cast<int>(HandleKind::Qp)];
    u.isa = best_batch_isa();
  }
  if (packs_) batch_loads(faster_batch_loads());
  batch_records(kBatchAfter);
}

// Returns whether the op record at p (its code byte) is this shard's: its
// leading handle, reduced as decoding reduces it, is.
bool Engine::mine(const uint8_t* p) const {
  HandleKind k = HandleKind::Buf;
  uint32_t h = 0;
  mwb::anchor(*fmt_, p, caps_, k, h);
  if (k == HandleKind::Buf) return true;
  return filter_.owner[filter_.node_base[static_cast<int>(k)] + h] == filter_.me;
}

template <bool Sharded>
[[gnu::always_inline]] inline void Engine::verdict() {
  pending_ = false;
  if (Sharded && !counts_) return;  // unsharded, every op counts
  ++v_.ops;
  if (want_ == kUnchecked) return;
  ++v_.checked;
  // Most expectations are the exact outcome: then equal words decide.
  if (want_ != mwb::meaning_word(out_)) [[unlikely]]
    check(want_);
}

size_t Engine::feed(std::span<const uint8_t> rec) {
  if (!fmt_->has_compact()) return filter_.owner ? feed_records<true, false>(rec) : feed_records<false, false>(rec);
  return filter_.owner ? feed_records<true, true>(rec) : feed_records<false, true>(rec);
}

template <bool Sharded, bool V2>
size_t Engine::feed_records(std::span<const uint8_t> rec) {
  const uint8_t* p = rec.data();
  const uint8_t* const end = p + rec.size();
  const mwb::Format& f = *fmt_;
  // Ops the record loop passed since they were last counted, folded
  // (checked) and bare: counted before the next op starts (index_ numbers
  // it); a full record counts them only when there are some, as most
  // follow another full record.
  uint64_t passed = 0, bare = 0;
  const auto count = [&] {
    const uint64_t n = passed + bare;
    index_ += n, v_.ops += n, v_.checked += passed, compact_hits_ += n;
    passed = bare = 0;
  };
  while (p < end) {
    const uint8_t code = f.code_of[*p];
    const size_t size = f.size_at[*p];
    if (static_cast<size_t>(end - p) < size) [[unlikely]]
      break;
    if (V2 && mwb::is_compact(code)) [[likely]] {
      if (pending_) verdict<Sharded>();
      const bool folded = (code - mwb::kCompactBase) & 1;
      // The usual case, decided in a loop of its own: compact records
      // whose check words pass, all folded (the usual outcome expected)
      // or all bare (nothing expected yet).
      if constexpr (!Sharded) {
        if (!outcomes_) [[likely]] {
          const uint8_t* const from = p;
          p = folded ? run_usual<true>(p, end, passed) : run_usual<false>(p, end, bare);
          if (p != from) {
            // The last of them waits for the expectations that follow it.
            if (f.code_of[*p] == mwb::kExpectCode) {
              const uint8_t* const last = p - mwb::kCompactSize;
              if (folded) --passed, count(), hold_usual<true>(last);
              else --bare, count(), hold_usual<false>(last);
            }
            continue;
          }
        }
        count();
      }
      if (start<Sharded>(p, folded ? mwb::kUsualMeaning : kUnchecked, folded ? kFallback : 0))
        compact(code, p + 1);
    } else if (code < kOpCount || (V2 && code >= mwb::kFoldBase)) {
      if constexpr (!Sharded)
        if (passed | bare) count();
      if (pending_) verdict<Sharded>();
      // A folded expectation is the op's fallback clause (else none yet;
      // version 1 has no folded codes).
      if (start<Sharded>(p, V2 ? fold_want_[code] : kUnchecked, V2 ? fold_seen_[code] : 0)) {
        out_ = run<V2>(full_op_[code], p + 1);
        if (outcomes_) [[unlikely]]
          outcomes_->push_back(out_);
      }
    } else if (code == mwb::kExpectCode && pending_) {
      // Mostly one fallback clause per op: kept without further ado.
      if ((p[1] & 0x80) && !(seen_ & (kFallback | kSpecific))) [[likely]] {
        seen_ |= kFallback;
        want_ = mwb::meaning_of_pattern(mwb::pattern_word(p + 2));
      } else {
        take_expect(p + 1);
      }
    }
    p += size;
  }
  count();
  // The next feed brings other bytes: keep the pending op's record.
  if (pending_ && rec_) {
    std::memcpy(held_.data(), rec_, f.size_at[*rec_]);
    rec_ = nullptr;
  }
  return static_cast<size_t>(p - rec.data());
}

// Starts the op record at p (its code byte), expecting `want` with clauses
// `seen` so far (its folded expectation, if any); returns whether it is this
// shard's, and so is to be run.
template <bool Sharded>
[[gnu::always_inline]] inline bool Engine::start(const uint8_t* p, uint64_t want, uint32_t seen) {
  ++index_;
  if constexpr (Sharded) {
    pending_ = mine(p);
    if (!pending_) return false;
    HandleKind k = HandleKind::Buf;
    uint32_t h = 0;
    mwb::anchor(*fmt_, p, caps_, k, h);
    counts_ = filter_.me == 0 || k != HandleKind::Buf;
  } else {
    pending_ = counts_ = true;
  }
  rec_ = p;
  seen_ = seen;
  want_ = want;
  return true;
}

// Runs the compact records from p, folded ones or bare ones, while their
// check words pass (FastPath::pass_hot): each is the usual success and
// changes nothing, so a bare one (no expectation yet) needs nothing more
// either. Returns where it stopped, never at the last record of the bytes
// fed (the next feed may bring its expectations). A run longer than
// batch_records() says goes on eight records at a time.
template <bool Folded>
const uint8_t* Engine::run_usual(const uint8_t* p, const uint8_t* end, uint64_t& passed) {
  const FastPath::HotView v = fast_.hot_view();
  const KeyLane* const lane = lanes_[Folded].data();
  const uint32_t qps = caps_[static_cast<int>(HandleKind::Qp)];
  constexpr ptrdiff_t kSize = mwb::kCompactSize;
  const auto passes = [&](const uint8_t* r) __attribute__((always_inline)) {
    // u8 code, u24 object (20-bit handle, 2-bit key), u16 qp, u16 len, u32 offset.
    uint64_t w;
    uint32_t off;
    std::memcpy(&w, r, 8);  // little-endian hosts only
    std::memcpy(&off, r + 8, 4);
    const KeyLane& e = lane[key_lane(static_cast<uint32_t>(w))];
    const uint32_t at = slot_offset(static_cast<uint32_t>(w));
    const uint32_t qp = (w >> 32) & 0xffff;
    const auto len = static_cast<uint32_t>(w >> 48);
    // Handles past the caps are reduced by the scalar path.
    const auto* const slots = static_cast<const uint8_t*>(e.slots);
    return at < e.bytes && qp < qps &&
           FastPath::pass_words(v.qps[qp], *reinterpret_cast<const FastPath::HotSlot*>(slots + at), off, len, e.rbit);
  };
  const uint8_t* const from = p;
  const uint8_t* const last = end - kSize;  // the loop stops before the last record
  // The first records one at a time; a run that goes on, eight at a time
  // (batch_records()), and what the batch leaves one at a time again.
  const size_t after = batch_after_;
  const uint8_t* const first = static_cast<size_t>(last - p) / kSize > after ? p + after * kSize : last;
  while (p < first && passes(p)) p += kSize;
  if (p == first && after != kNever) {
    p = usual_batch(p, last, usual_[Folded]);
    while (p < last && passes(p)) p += kSize;
  }
  passed += static_cast<uint64_t>(p - from) / kSize;
  return p;
}

// Makes the compact record at p, which the loop above passed, the op
// awaiting its verdict, with the usual outcome (and, folded, expecting it).
template <bool Folded>
void Engine::hold_usual(const uint8_t* p) {
  start<false>(p, Folded ? mwb::kUsualMeaning : kUnchecked, Folded ? kFallback : 0);
  ++compact_hits_;
  out_ = mwb::kUsualOutcome;
}

// Returns the outcome of the op of a full record (p after its code byte),
// decoded straight into the op's typed view: through the fast path in
// version 2, on the model directly in version 1 (no compact records, so
// no copies to keep).
template <bool V2>
[[gnu::always_inline]] inline Outcome Engine::run(uint8_t code, const uint8_t* p) {
  switch (static_cast<OpCode>(code)) {
#define OP(name, bin, kind, summary)                              \
  case OpCode::name:                                              \
    if constexpr (V2)                                             \
      return fast_.run(mwb::decode_view<args::name>(p, caps_));   \
    else                                                          \
      return model_.step(mwb::decode_view<args::name>(p, caps_));
    MWC_OPS(OP)
#undef OP
  }
  __builtin_unreachable();
}

// Runs a compact record (p after its code byte): through the fast path,
// else (a refusal, a stale copy) on the model. (start() took a folded
// code's usual outcome as the op's fallback clause.)
[[gnu::always_inline]] inline void Engine::compact(uint8_t code, const uint8_t* p) {
  const mwb::Compact c = mwb::decode_compact(code, p, caps_);
  if (fast_.pass(c.qp, c.key, c.h, c.off, c.len, mwb::kCompactRight[code - mwb::kCompactBase],
                 false)) [[likely]] {
    ++compact_hits_;
    out_ = mwb::kUsualOutcome;
  } else {
    static_assert(mwb::kCompactOpCount == 2 && mwb::kCompactOps[0] == OpCode::peer_write &&
                      mwb::kCompactOps[1] == OpCode::peer_read,
                  "a compact record is a peer_write or a peer_read");
    out_ = c.op == OpCode::peer_write ? fast_.slow(mwb::compact_view<args::peer_write>(c))
                                      : fast_.slow(mwb::compact_view<args::peer_read>(c));
  }
  if (outcomes_) [[unlikely]]
    outcomes_->push_back(out_);
}

// Keeps an expectation of the pending op as the whole-trace decoder would
// (mwb::expectation_kept), and notes the pattern to check: the clause for
// this engine's column, else the fallback.
void Engine::take_expect(const uint8_t* p) {
  if (p[0] & 0x80) {
    if (seen_ & kFallback) return;
    seen_ |= kFallback;
    if (!(seen_ & kSpecific)) want_ = mwb::meaning_of_pattern(mwb::pattern_word(p + 1));
    return;
  }
  const uint8_t profiles = mwb::expect_profiles(p[0]);
  if (profiles == 0 || (profiles & seen_)) return;
  seen_ |= profiles;
  if (column_ >= 0 && ((profiles >> column_) & 1)) {
    seen_ |= kSpecific;
    want_ = mwb::meaning_of_pattern(mwb::pattern_word(p + 1));
  }
}


// Checks the pending op's outcome against a pattern that is not its exact
// outcome (a looser pattern, or a mismatch).
void Engine::check(uint64_t meaning) {
  const uint64_t word = mwb::pattern_of_meaning(meaning);
  uint8_t bytes[8];
  std::memcpy(bytes, &word, 8);  // little-endian hosts only
  const Pattern want = mwb::decode_pattern(bytes);
  if (matches(want, out_)) return;
  if (++v_.mismatches > Verdicts::kKeep) return;
  const uint8_t* rec = rec_ ? rec_ : held_.data();
  Op op;
  mwb::decode_any_op(*fmt_, rec, caps_, op);
  v_.first.push_back(Mismatch{index_ - 1, "", op_to_text(op), to_text(out_), to_text(want),
                                std::string(rule_desc(out_.rule).id)});
}

const Verdicts& Engine::finish() {
  if (pending_) verdict<true>();
  return v_;
}

}  // namespace mwc::replay
