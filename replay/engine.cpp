#include "replay/engine.hpp"

#include <algorithm>

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

bool Engine::mine(const Op& op) const {
  const auto k = mwb::kAnchorKind[static_cast<int>(op.code)];
  if (k == HandleKind::Buf) return true;
  return filter_.owner[filter_.node_base[static_cast<int>(k)] + op.a[0].h] == filter_.me;
}

size_t Engine::feed(std::span<const uint8_t> rec) {
  const uint8_t* p = rec.data();
  const uint8_t* const end = p + rec.size();
  while (p < end) {
    const uint8_t code = *p % mwb::kCodeCount;
    const size_t size = mwb::kRecordSize[code];
    if (static_cast<size_t>(end - p) < size) break;
    if (code < kOpCount) {
      if (pending_) verdict();
      mwb::decode_op(static_cast<OpCode>(code), p + 1, caps_, op_);
      ++index_;
      pending_ = !filter_.owner || mine(op_);
      if (pending_) {
        out_ = model_.step(op_);
        if (outcomes_) outcomes_->push_back(out_);
        counts_ = !filter_.owner || filter_.me == 0 ||
                  mwb::kAnchorKind[code] != HandleKind::Buf;
        nkept_ = 0;
        specific_ = fallback_ = -1;
      }
    } else if (code == mwb::kExpectCode && pending_) {
      take_expect(p + 1);
    }
    p += size;
  }
  return static_cast<size_t>(p - rec.data());
}

// Keeps an expectation of the pending op as the whole-trace decoder would,
// and notes which kept clause applies to this engine's column.
void Engine::take_expect(const uint8_t* p) {
  if (nkept_ == kept_.size()) return;  // every clause is taken: a duplicate
  Expectation& e = kept_[nkept_];
  if (!mwb::decode_expect(p, 0, e)) return;
  if (!mwb::expectation_kept({kept_.data(), nkept_}, e)) return;
  if (e.fallback) fallback_ = static_cast<int8_t>(nkept_);
  else if (specific_ < 0 && column_ >= 0 && ((e.profiles >> column_) & 1))
    specific_ = static_cast<int8_t>(nkept_);
  ++nkept_;
}

void Engine::verdict() {
  pending_ = false;
  if (!counts_) return;
  ++v_.ops;
  const int which = specific_ >= 0 ? specific_ : fallback_;
  if (which < 0) return;
  const Pattern& want = kept_[static_cast<size_t>(which)].pattern;
  ++v_.checked;
  if (matches(want, out_)) [[likely]]
    return;
  if (++v_.mismatches <= Verdicts::kKeep)
    v_.first.push_back(Mismatch{index_ - 1, op_to_text(op_), to_text(out_), to_text(want),
                                std::string(rule_desc(out_.rule).id)});
}

const Verdicts& Engine::finish() {
  if (pending_) verdict();
  return v_;
}

}  // namespace mwc::replay
