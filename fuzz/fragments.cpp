#include "fuzz/fragments.hpp"

#include <array>

#include "fuzz/guide.hpp"

namespace mwc::fuzz {
namespace {

enum Step : uint8_t { kBind, kAccess, kInvalidate, kReleaseMr, kSteps };

struct Shape {
  uint8_t n;
  Step steps[3];
};
constexpr Shape kShapes[] = {
    {2, {kBind, kAccess}},               // bind-then-access
    {3, {kBind, kInvalidate, kAccess}},  // invalidate-then-access
    {3, {kBind, kReleaseMr, kAccess}},   // dereg-while-bound
    {3, {kBind, kBind, kAccess}},        // rebind
};

bool has(const OpDesc& d, FieldKind k) {
  for (const auto& f : d.fields)
    if (f.kind == k) return true;
  return false;
}

// The ops that can take each step, and the ops that may create an object
// of each kind (their first field names it), read from the op table.
struct Classes {
  std::vector<OpCode> step[kSteps];
  std::vector<OpCode> makes[kHandleKinds];
};

const Classes& classes() {
  static const Classes c = [] {
    Classes r;
    for (int i = 0; i < kOpCount; ++i) {
      const auto code = static_cast<OpCode>(i);
      const OpDesc& d = op_desc(code);
      const bool addr = has(d, FieldKind::Addr);
      if (has(d, FieldKind::Mw) && has(d, FieldKind::Mr)) r.step[kBind].push_back(code);
      if (d.kind == OpKind::Remote && addr) r.step[kAccess].push_back(code);
      if (has(d, FieldKind::Rkey) && !addr) r.step[kInvalidate].push_back(code);
      if (d.kind != OpKind::Resource || d.fields.empty() || d.fields[0].mode != FieldMode::Pos ||
          !is_handle(d.fields[0].kind))
        continue;
      r.makes[static_cast<int>(handle_kind(d.fields[0].kind))].push_back(code);
      bool names_pd = false;  // a registration names its PD; a release does not need to
      for (const auto& f : d.fields) names_pd = names_pd || (f.kind == FieldKind::Pd && f.mode == FieldMode::Req);
      if (d.fields[0].kind == FieldKind::Mr && !names_pd) r.step[kReleaseMr].push_back(code);
    }
    return r;
  }();
  return c;
}

constexpr uint32_t bit(size_t f) { return uint32_t{1} << f; }

class Builder {
 public:
  Builder(const Trace& t, size_t at, size_t room, Rng& rng) : g_(t, at), room_(room), rng_(rng) {}

  // Creates an object of kind k in a free slot: tries the ops whose first
  // field names one, keeping the first that makes it live (the others are
  // refused or skipped and leave the state as it was).
  void create(HandleKind k) {
    uint32_t free[64], nfree = 0;
    for (uint32_t h = 0; h < g_.cap(k) && nfree < 64; ++h)
      if (!g_.object(k, h).live) free[nfree++] = h;
    const auto& makers = classes().makes[static_cast<int>(k)];
    if (nfree == 0 || makers.empty()) return;
    const uint32_t h = free[rng_.below(nfree)];
    for (size_t tries = 0; tries < 2 * makers.size() && ops_.size() < room_; ++tries) {
      Op op = default_op(makers[rng_.below(makers.size())]);
      op.a[0].h = h;
      g_.fill(op, bit(0), rng_);
      g_.step(op);
      if (g_.object(k, h).live) return ops_.push_back(op);
    }
  }

  // What the scenario needs: a live object of every kind (now and then a
  // new one besides).
  void setup() {
    for (HandleKind k : {HandleKind::Buf, HandleKind::Pd, HandleKind::Mr, HandleKind::Mw, HandleKind::Qp}) {
      bool any = false;
      for (uint32_t h = 0; h < g_.cap(k) && !any; ++h) any = g_.object(k, h).live;
      if (!any || rng_.chance(1, 8)) create(k);
    }
  }

  void run(const Shape& s) {
    const uint32_t w = g_.handle(HandleKind::Mw, Op{}, 0, rng_);
    if (w == kNoHandle) return;
    uint32_t mr = kNoHandle;
    for (uint8_t i = 0; i < s.n && ops_.size() < room_; ++i) {
      const auto& codes = classes().step[s.steps[i]];
      if (codes.empty()) continue;
      Op op = default_op(codes[rng_.below(codes.size())]);
      const auto& d = op_desc(op.code);
      uint32_t keep = 0;
      size_t mr_field = kMaxFields;
      for (size_t f = 0; f < d.fields.size(); ++f) {
        Arg& a = op.a[f];
        switch (d.fields[f].kind) {
          case FieldKind::Mw: a.h = w, keep |= bit(f); break;
          case FieldKind::Mr:
            mr_field = f;
            if (s.steps[i] == kReleaseMr && mr == kNoHandle) mr = g_.object(HandleKind::Mw, w).mr;
            if (mr != kNoHandle) a.h = mr, keep |= bit(f);
            break;
          case FieldKind::Rkey: {  // the window's key: current, the one before, or a guess
            const uint64_t r = rng_.below(8);
            a = Arg{r == 7 ? 1u : 0u, w, static_cast<uint8_t>(r < 5 || r == 7 ? RkeyBase::MwCur : RkeyBase::MwPrev)};
            keep |= bit(f);
            break;
          }
          default: break;
        }
      }
      g_.fill(op, keep, rng_);
      if (mr_field < kMaxFields && op.a[mr_field].h != kNoHandle) mr = op.a[mr_field].h;
      g_.step(op);
      ops_.push_back(op);
    }
  }

  std::vector<Op> take() { return std::move(ops_); }

 private:
  Guide g_;
  size_t room_;
  Rng& rng_;
  std::vector<Op> ops_;
};

}  // namespace

std::vector<Op> fragment(const Trace& t, size_t at, size_t room, Rng& rng) {
  Builder b(t, at, room, rng);
  b.setup();
  b.run(kShapes[rng.below(std::size(kShapes))]);
  return b.take();
}

}  // namespace mwc::fuzz
