#include "replay/partition.hpp"

#include <algorithm>
#include <numeric>

#include "refmodel/layout.hpp"
#include "refmodel/mwb_record.hpp"

namespace mwc::replay {

Partition::Partition(const Caps& caps, uint16_t version)
    : caps_(caps), fmt_(&mwb::format(version)) {
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


// Links the objects field `a` of kind K names to the op's first one.
template <FieldKind K>
void Partition::link(const Arg& a, uint32_t& first) {
  if constexpr (is_handle(K)) {
    link(handle_kind(K), a.h, first);
  } else if constexpr (K == FieldKind::Addr) {
    const auto b = static_cast<AddrBase>(a.tag);
    if (b == AddrBase::Mr) link(HandleKind::Mr, a.h, first);
    if (b == AddrBase::Mw) link(HandleKind::Mw, a.h, first);
  } else if constexpr (K == FieldKind::Rkey) {
    const auto b = static_cast<RkeyBase>(a.tag);
    if (b == RkeyBase::Mr) link(HandleKind::Mr, a.h, first);
    if (b == RkeyBase::MwCur || b == RkeyBase::MwPrev) link(HandleKind::Mw, a.h, first);
    if (b == RkeyBase::Raw) {  // the object the key's index names, if any
      const layout::KeyObject k = layout::key_object(a.h);
      link(k.window ? HandleKind::Mw : HandleKind::Mr, k.h, first);
    }
  }
}

void Partition::link(HandleKind k, uint32_t h, uint32_t& first) {
  if (k == HandleKind::Buf || h >= caps_[static_cast<int>(k)]) return;
  const uint32_t n = node(k, h);
  if (n == last_) return;  // an rkey and an address through the same window
  last_ = n;
  const uint32_t r = find(n);
  if (first == kNone) {
    first = n;
    root_ = r;
  } else if (r != root_) {  // the lower root stays: the result is order-free
    parent_[std::max(r, root_)] = std::min(r, root_);
    root_ = std::min(r, root_);
  }
}

void Partition::add(const Op& op) {
  uint32_t first = kNone;
  last_ = kNone;
  switch (op.code) {
#define MWC_LINK(kind, fname, mode, use, def, lo, hi) link<FieldKind::kind>(op.a[i++], first);
#define OP(name, bin, kind, summary) \
  case OpCode::name: {          \
    int i = 0;                  \
    MWC_FIELDS_##name(MWC_LINK) \
    (void)i;                    \
    break;                      \
  }
    MWC_OPS(OP)
#undef OP
#undef MWC_LINK
  }
  if (first != kNone) ++ops_[first];  // ops led by a buffer name no other object
}

size_t Partition::feed(std::span<const uint8_t> rec) {
  size_t i = 0;
  while (i < rec.size()) {
    const size_t size = fmt_->size_at[rec[i]];
    if (rec.size() - i < size) break;
    if (mwb::decode_any_op(*fmt_, rec.data() + i, caps_, op_)) add(op_);
    i += size;
  }
  return i;
}

void Partition::merge(Partition& other) {
  for (uint32_t x = 0; x < parent_.size(); ++x) {
    ops_[x] += other.ops_[x];
    const uint32_t a = find(x), b = find(other.find(x));
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
}

size_t Partition::cut(std::span<const uint8_t> rec, uint64_t at, uint64_t total, int n,
                      std::vector<uint64_t>& starts, uint16_t version) {
  const mwb::Format& f = mwb::format(version);
  if (starts.empty()) starts.push_back(0);
  size_t i = 0;
  while (i < rec.size()) {
    const size_t size = f.size_at[rec[i]];
    if (rec.size() - i < size) break;
    const uint64_t next = total / static_cast<uint64_t>(n) * starts.size();
    if (static_cast<int>(starts.size()) < n && at + i >= next) starts.push_back(at + i);
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
