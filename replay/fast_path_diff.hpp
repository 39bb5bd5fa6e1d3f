// The fast path against the model, op by op: the differential check the
// tests, the property and the fuzz target share. Header-only (the fuzz
// build has no replay library).
#pragma once
#include <cstdint>

#include "refmodel/model.hpp"
#include "refmodel/trace.hpp"
#include "replay/fast_path.hpp"

namespace mwc::replay {

// Where a trace's run through the fast path and Model::step part.
struct Divergence {
  int64_t op = -1;  // the first op whose outcomes differ, or -1
  Outcome model, fast;
  uint64_t fast_ops = 0;  // ops the fast path decided (up to `op`)
  uint64_t hot_ops = 0;   // of them, ops the record loop's check words passed
};

// Runs trace t under profile p on a model, and through a FastPathT<D> over
// a second model; returns the first op whose outcome (meaning and rule)
// differs, if any.
template <class D = Concrete>
Divergence first_divergence(const Trace& t, const Profile& p) {
  Model ref(p), fast_model(p);
  ref.reset(t.caps);
  fast_model.reset(t.caps);
  FastPathT<D> fast(fast_model, t.caps);
  Divergence d;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Outcome a = ref.step(t.ops[i]);
    const Outcome b = fast.step(t.ops[i]);
    if (!(a == b) || a.rule != b.rule) {
      d.op = static_cast<int64_t>(i);
      d.model = a;
      d.fast = b;
      break;
    }
  }
  d.fast_ops = fast.hits();
  d.hot_ops = fast.hot_hits();
  return d;
}

// Returns t with each peer read, write and atomic through a window's or an
// MR's key rebased onto that object (offset kept modulo 4096, key byte
// delta 0): the shape the fast path takes, so random traces reach it.
inline Trace fast_shaped(Trace t) {
  for (Op& op : t.ops) {
    if (op_desc(op.code).kind != OpKind::Remote || op.code == OpCode::peer_send_inv) continue;
    Arg& key = op.a[1];
    if (key.tag == static_cast<uint8_t>(RkeyBase::Raw)) continue;
    key.v = 0;
    const bool mr = key.tag == static_cast<uint8_t>(RkeyBase::Mr);
    op.a[2] = Arg{op.a[2].v % 4096, key.h, static_cast<uint8_t>(mr ? AddrBase::Mr : AddrBase::Mw)};
  }
  return t;
}

}  // namespace mwc::replay
