#include "adapters/minimize.hpp"

#include <algorithm>
#include <array>

namespace mwc {
namespace {

// The predicate with a budget: once spent, every candidate "passes" (is
// rejected), so minimization stops shrinking.
struct Oracle {
  const std::function<bool(const Trace&)>& f;
  size_t budget, tests = 0;
  bool operator()(const Trace& t) {
    if (tests >= budget) return false;
    ++tests;
    return f(t);
  }
};

std::vector<uint32_t> complement(const std::vector<uint32_t>& all, size_t from, size_t to) {
  std::vector<uint32_t> r(all.begin(), all.begin() + from);
  r.insert(r.end(), all.begin() + to, all.end());
  return r;
}

// ddmin over op indices (Zeller and Hildebrandt 2002), complements only:
// removing a chunk is what shrinks traces of dependent ops best.
std::vector<uint32_t> ddmin(const Trace& t, std::vector<uint32_t> keep, Oracle& fails) {
  size_t n = 2;
  while (keep.size() >= 2) {
    const size_t chunk = (keep.size() + n - 1) / n;
    bool reduced = false;
    for (size_t from = 0; from < keep.size(); from += chunk) {
      auto c = complement(keep, from, std::min(keep.size(), from + chunk));
      if (!fails(keep_ops(t, c))) continue;
      keep = std::move(c);
      n = std::max<size_t>(n - 1, 2);
      reduced = true;
      break;
    }
    if (reduced) continue;
    if (n >= keep.size()) break;
    n = std::min(keep.size(), n * 2);
  }
  // One op at a time, until no single op can go.
  for (bool again = true; again;) {
    again = false;
    for (size_t i = keep.size(); i-- > 0;) {
      auto c = complement(keep, i, i + 1);
      if (fails(keep_ops(t, c))) keep = std::move(c), again = true;
    }
  }
  return keep;
}

// The handle kind an argument names, or -1 for a raw value.
int handle_of(FieldKind k, const Arg& a) {
  if (is_handle(k)) return a.h == kNoHandle ? -1 : static_cast<int>(k);
  if (k == FieldKind::Addr) {
    switch (static_cast<AddrBase>(a.tag)) {
      case AddrBase::Buf: return static_cast<int>(HandleKind::Buf);
      case AddrBase::Mr: return static_cast<int>(HandleKind::Mr);
      case AddrBase::Mw: return static_cast<int>(HandleKind::Mw);
      case AddrBase::Raw: return -1;
    }
  }
  if (k == FieldKind::Rkey) {
    switch (static_cast<RkeyBase>(a.tag)) {
      case RkeyBase::MwCur:
      case RkeyBase::MwPrev: return static_cast<int>(HandleKind::Mw);
      case RkeyBase::Mr: return static_cast<int>(HandleKind::Mr);
      case RkeyBase::Raw: return -1;
    }
  }
  return -1;
}

// Returns t with each kind's handles numbered 0, 1, ... in order of first
// use and the caps shrunk to fit.
Trace renumber(const Trace& t) {
  Trace r = t;
  std::array<std::vector<uint32_t>, kHandleKinds> seen;  // old handles, by new number
  const auto map = [&](int kind, uint32_t h) {
    auto& s = seen[kind];
    auto it = std::find(s.begin(), s.end(), h);
    if (it == s.end()) s.push_back(h), it = s.end() - 1;
    return static_cast<uint32_t>(it - s.begin());
  };
  for (Op& op : r.ops) {
    const auto& d = op_desc(op.code);
    for (size_t f = 0; f < d.fields.size(); ++f) {
      const int kind = handle_of(d.fields[f].kind, op.a[f]);
      if (kind >= 0) op.a[f].h = map(kind, op.a[f].h);
    }
  }
  for (int k = 0; k < kHandleKinds; ++k)
    r.caps[k] = std::max<uint32_t>(1, static_cast<uint32_t>(seen[k].size()));
  return r;
}

// Sets fields back to their defaults wherever the failure survives it.
void simplify_fields(Trace& t, Oracle& fails) {
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op def = default_op(t.ops[i].code);
    const auto& d = op_desc(t.ops[i].code);
    for (size_t f = 0; f < d.fields.size(); ++f) {
      if (d.fields[f].mode != FieldMode::Opt || t.ops[i].a[f] == def.a[f]) continue;
      Trace c = t;
      c.ops[i].a[f] = def.a[f];
      if (fails(c)) t = std::move(c);
    }
  }
}

}  // namespace

Trace keep_ops(const Trace& t, const std::vector<uint32_t>& keep) {
  Trace r;
  r.caps = t.caps;
  r.ops.reserve(keep.size());
  size_t e = 0;
  for (uint32_t n = 0; n < keep.size(); ++n) {
    const uint32_t i = keep[n];
    r.ops.push_back(t.ops[i]);
    while (e < t.expects.size() && t.expects[e].op < i) ++e;
    for (; e < t.expects.size() && t.expects[e].op == i; ++e) {
      r.expects.push_back(t.expects[e]);
      r.expects.back().op = n;
    }
  }
  return r;
}

Trace minimize(const Trace& t, const std::function<bool(const Trace&)>& still_fails,
               size_t max_tests, MinimizeStats* stats) {
  Oracle fails{still_fails, max_tests};
  Trace best = t;
  if (fails(t)) {
    std::vector<uint32_t> all(t.ops.size());
    for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
    best = keep_ops(t, ddmin(t, std::move(all), fails));
    if (Trace r = renumber(best); fails(r)) best = std::move(r);
    simplify_fields(best, fails);
  }
  if (stats) *stats = {fails.tests, t.ops.size(), best.ops.size()};
  return best;
}

}  // namespace mwc
