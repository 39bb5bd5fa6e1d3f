#include "fuzz/fragments.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <variant>

#include "fuzz/conformance_texts.hpp"
#include "fuzz/guide.hpp"
#include "refmodel/text_codec.hpp"

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

// The ops that can take each step, read from the op table; and the ops
// that create an object of each kind: those that made one live in the
// conformance corpus, the most used first (reg_mr before rdma_reg_msgs).
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
      bool names_pd = false;  // a registration names its PD; a release does not need to
      for (const auto& f : d.fields) names_pd = names_pd || (f.kind == FieldKind::Pd && f.mode == FieldMode::Req);
      if (d.kind == OpKind::Resource && !d.fields.empty() && d.fields[0].kind == FieldKind::Mr && !names_pd)
        r.step[kReleaseMr].push_back(code);
    }
    int made[kHandleKinds][kOpCount] = {};
    Model m(profile(ProfileId::verbs));
    for (const auto& e : conformance_texts()) {
      auto parsed = parse_text(e.text);
      const Trace* t = std::get_if<Trace>(&parsed);
      if (!t) continue;
      m.reset(t->caps);
      for (const Op& op : t->ops) {
        const auto& d = op_desc(op.code);
        const bool names = !d.fields.empty() && d.fields[0].mode == FieldMode::Pos && is_handle(d.fields[0].kind);
        const HandleKind k = names ? handle_kind(d.fields[0].kind) : HandleKind::Buf;
        const bool before = names && m.object(k, op.a[0].h).live;
        m.step(op);
        if (names && !before && m.object(k, op.a[0].h).live) ++made[static_cast<int>(k)][static_cast<int>(op.code)];
      }
    }
    for (int k = 0; k < kHandleKinds; ++k) {
      for (int i = 0; i < kOpCount; ++i)
        if (made[k][i]) r.makes[k].push_back(static_cast<OpCode>(i));
      std::stable_sort(r.makes[k].begin(), r.makes[k].end(), [&](OpCode a, OpCode b) {
        return made[k][static_cast<int>(a)] > made[k][static_cast<int>(b)];
      });
    }
    return r;
  }();
  return c;
}

constexpr uint32_t bit(size_t f) { return uint32_t{1} << f; }

class Builder {
 public:
  Builder(const Trace& t, size_t at, size_t room, Rng& rng) : g_(t, at), room_(room), rng_(rng) {
    g_.prefer_live();
  }

  // Creates an object of kind k in a free slot with one of the ops that
  // create one, the most used first.
  void create(HandleKind k) {
    uint32_t free[64], nfree = 0;
    for (uint32_t h = 0; h < g_.cap(k) && nfree < 64; ++h)
      if (!g_.object(k, h).live) free[nfree++] = h;
    const auto& makers = classes().makes[static_cast<int>(k)];
    if (nfree == 0 || makers.empty()) return;
    const uint32_t h = free[rng_.below(nfree)];
    // Of the candidates that make it (probed: the state stays), the one
    // with the most rights, so that the scenario's steps can use it.
    Op best{};
    int best_rights = -1, found = 0;
    for (size_t tries = 0; tries < 128 && tries / 32 < makers.size() && found < 4; ++tries) {
      Op op = default_op(makers[tries / 32]);
      op.a[0].h = h;
      g_.fill(op, bit(0), rng_, 3);  // plain objects, mostly: the scenario is the point
      const auto v = g_.after(op, k, h);
      if (!v.live) continue;
      ++found;
      const int rights = std::popcount(v.access);
      if (rights > best_rights) best = op, best_rights = rights;
    }
    if (best_rights < 0 || ops_.size() >= room_) return;
    g_.step(best);
    if (k == HandleKind::Mw) made_window_ = h;
    ops_.push_back(best);
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
    const uint32_t w = made_window_ != kNoHandle ? made_window_ : g_.handle(HandleKind::Mw, Op{}, 0, rng_);
    if (w == kNoHandle) return;
    uint32_t mr = kNoHandle;
    for (uint8_t i = 0; i < s.n && ops_.size() < room_; ++i) {
      const auto& codes = classes().step[s.steps[i]];
      if (codes.empty()) continue;
      // A bind should bind the window and an invalidation free it, three
      // times in four: of a few candidates, the first that does (the
      // others reach the refusals, as do the remaining quarter).
      const bool goal = (s.steps[i] == kBind || s.steps[i] == kInvalidate) && rng_.chance(3, 4);
      Op op{};
      for (int tries = 0; tries < 32; ++tries) {
        Op c = default_op(codes[rng_.below(codes.size())]);
        const auto& d = op_desc(c.code);
        uint32_t keep = 0;
        for (size_t f = 0; f < d.fields.size(); ++f) {
          Arg& a = c.a[f];
          switch (d.fields[f].kind) {
            case FieldKind::Mw: a.h = w, keep |= bit(f); break;
            case FieldKind::Mr:
              if (s.steps[i] == kReleaseMr && mr == kNoHandle) mr = g_.object(HandleKind::Mw, w).mr;
              if (mr != kNoHandle) a.h = mr, keep |= bit(f);
              break;
            case FieldKind::Rkey: {  // the window's key: current, the one before, or a guess
              const uint64_t r = rng_.below(8);
              a = Arg{r == 7 ? 1u : 0u, w,
                      static_cast<uint8_t>(r < 5 || r == 7 ? RkeyBase::MwCur : RkeyBase::MwPrev)};
              keep |= bit(f);
              break;
            }
            default: break;
          }
        }
        g_.fill(c, keep, rng_);
        if (tries == 0) op = c;
        if (!goal || g_.after(c, HandleKind::Mw, w).bound == (s.steps[i] == kBind)) {
          op = c;
          break;
        }
      }
      const auto& d = op_desc(op.code);
      for (size_t f = 0; f < d.fields.size(); ++f)  // the MR the scenario goes on with
        if (d.fields[f].kind == FieldKind::Mr && op.a[f].h != kNoHandle) mr = op.a[f].h;
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
  uint32_t made_window_ = kNoHandle;
};

}  // namespace

std::vector<Op> fragment(const Trace& t, size_t at, size_t room, Rng& rng) {
  Builder b(t, at, room, rng);
  b.setup();
  b.run(kShapes[rng.below(std::size(kShapes))]);
  return b.take();
}

}  // namespace mwc::fuzz
