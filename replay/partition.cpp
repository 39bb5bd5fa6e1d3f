#include "replay/partition.hpp"

#include <algorithm>
#include <numeric>

#include "refmodel/model.hpp"
#include "refmodel/mwb_record.hpp"

namespace mwc::replay {

Partition::Partition(const Caps& caps) : caps_(caps) {
  uint32_t n = 0;
  for (int k = 0; k < kHandleKinds; ++k) {
    base_[k] = n;
    if (k != static_cast<int>(HandleKind::Buf)) n += caps[k];
  }
  parent_.resize(n);
  std::iota(parent_.begin(), parent_.end(), 0u);
  ops_.assign(n, 0);
}

uint32_t Partition::find(uint32_t x) {
  while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
  return x;
}

void Partition::unite(uint32_t a, uint32_t b) {
  a = find(a);
  b = find(b);
  if (a != b) parent_[std::max(a, b)] = std::min(a, b);
}

void Partition::add(const Op& op) {
  const auto& d = op_desc(op.code);
  constexpr uint32_t kNone = ~0u;
  uint32_t first = kNone;
  const auto link = [&](HandleKind k, uint32_t h) {
    if (k == HandleKind::Buf || h >= caps_[static_cast<int>(k)]) return;
    const uint32_t n = node(k, h);
    if (first == kNone) first = n;
    else unite(first, n);
  };
  for (size_t f = 0; f < d.fields.size(); ++f) {
    const Arg& a = op.a[f];
    const FieldKind k = d.fields[f].kind;
    if (is_handle(k)) {
      link(handle_kind(k), a.h);
    } else if (k == FieldKind::Addr) {
      const auto b = static_cast<AddrBase>(a.tag);
      if (b == AddrBase::Mr) link(HandleKind::Mr, a.h);
      if (b == AddrBase::Mw) link(HandleKind::Mw, a.h);
    } else if (k == FieldKind::Rkey) {
      const auto b = static_cast<RkeyBase>(a.tag);
      if (b == RkeyBase::Mr) link(HandleKind::Mr, a.h);
      if (b == RkeyBase::MwCur || b == RkeyBase::MwPrev) link(HandleKind::Mw, a.h);
      if (b == RkeyBase::Raw) {  // the object the key's index names, if any
        const uint32_t idx = a.h >> 8;
        if (idx & kMwIndexBit) link(HandleKind::Mw, idx & ~kMwIndexBit);
        else if (idx >= 1) link(HandleKind::Mr, idx - 1);
      }
    }
  }
  if (mwb::kAnchorKind[static_cast<int>(op.code)] != HandleKind::Buf && first != kNone) ++ops_[first];
}

size_t Partition::feed(std::span<const uint8_t> rec) {
  size_t i = 0;
  while (i < rec.size()) {
    const uint8_t code = mwb::kCodeOf[rec[i]];
    const size_t size = mwb::kRecordSize[code];
    if (rec.size() - i < size) break;
    if (code < kOpCount) {
      mwb::decode_op(static_cast<OpCode>(code), rec.data() + i + 1, caps_, op_);
      add(op_);
    }
    i += size;
  }
  return i;
}

int Partition::assign(int shards) {
  const uint32_t n = static_cast<uint32_t>(parent_.size());
  std::vector<uint64_t> load(n, 0);
  for (uint32_t x = 0; x < n; ++x) load[find(x)] += ops_[x];
  std::vector<uint32_t> roots;
  for (uint32_t x = 0; x < n; ++x)
    if (parent_[x] == x) roots.push_back(x);
  std::stable_sort(roots.begin(), roots.end(),
                   [&](uint32_t a, uint32_t b) { return load[a] > load[b]; });
  std::vector<uint64_t> shard_load(static_cast<size_t>(std::max(shards, 1)), 0);
  std::vector<uint8_t> root_shard(n, 0);
  int used = 0;
  for (const uint32_t r : roots) {
    const auto s = std::min_element(shard_load.begin(), shard_load.end()) - shard_load.begin();
    shard_load[static_cast<size_t>(s)] += load[r];
    root_shard[r] = static_cast<uint8_t>(s);
    if (load[r]) used = std::max(used, static_cast<int>(s) + 1);
  }
  owner_.resize(n);
  for (uint32_t x = 0; x < n; ++x) owner_[x] = root_shard[find(x)];
  return std::max(used, 1);
}

ShardFilter Partition::filter(int me) const {
  ShardFilter f;
  f.owner = owner_.data();
  f.node_base = base_;
  f.me = static_cast<uint8_t>(me);
  return f;
}

}  // namespace mwc::replay
