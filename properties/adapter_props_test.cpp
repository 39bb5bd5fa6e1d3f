// The verbs adapter means by a trace what the model means. Its Book (the
// session's record of MRs and windows), driven as the session drives it
// with the model standing in for the device, agrees with the model after
// every op of generated sequences: on each address reference (buffer, MR
// iova, window start: zero-based or not), each MR's iova (after rereg_mr
// too), each bound window's range, and, where the consumer's copy of a
// window's rkey changes at post as the adapter's does, on every rkey
// reference and every bind's key outcome.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "adapters/verbs/book_mirror.hpp"
#include "properties/gen.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::props {
namespace {

using verbs::Book;

Arg ref(uint8_t tag, uint32_t h, uint64_t v) { return Arg{v, h, tag}; }

// Fails the property with where and what, when a != b.
template <class T>
void same(const T& model, const T& book, const Op& op, const char* what, uint32_t h) {
  if (model != book)
    RC_FAIL("after " + op_to_text(op) + ": " + what + " of handle " + std::to_string(h) +
            ": model " + std::to_string(model) + ", adapter " + std::to_string(book));
}

// What the adapter cannot see of a device, the property does not compare.
struct Seen {
  bool keys;     // the consumer's copy of an rkey moves at post, as the adapter's
  bool windows;  // a failed bind keeps the binding, as the adapter assumes
};

void check(const Model& m, const Book& b, const Caps& caps, const Op& op, Seen seen) {
  for (uint32_t h = 0; h < caps[static_cast<int>(HandleKind::Buf)]; ++h)
    same(m.addr_of(ref(uint8_t(AddrBase::Buf), h, 16)),
         b.resolve(ref(uint8_t(AddrBase::Buf), h, 16)), op, "buffer address", h);
  for (uint32_t h = 0; h < caps[static_cast<int>(HandleKind::Mr)]; ++h) {
    for (const uint64_t off : {uint64_t{0}, uint64_t{24}})
      same(m.addr_of(ref(uint8_t(AddrBase::Mr), h, off)),
           b.resolve(ref(uint8_t(AddrBase::Mr), h, off)), op, "MR address", h);
    const Arg key = ref(uint8_t(RkeyBase::Mr), h, 0);
    const Model::KeyTarget t = m.key_target(m.rkey_of(key));
    if (b.mr(h).live != t.ok) RC_FAIL("after " + op_to_text(op) + ": MR liveness differs");
    if (t.ok) same(t.mr_iova, b.mr(h).iova, op, "MR iova", h);
    if (b.mr(h).rkey) same(m.rkey_of(key), b.resolve_rkey(key), op, "MR rkey", h);
  }
  for (uint32_t h = 0; h < caps[static_cast<int>(HandleKind::Mw)] && seen.windows; ++h) {
    for (const uint64_t off : {uint64_t{0}, uint64_t{8}})
      same(m.addr_of(ref(uint8_t(AddrBase::Mw), h, off)),
           b.resolve(ref(uint8_t(AddrBase::Mw), h, off)), op, "window address", h);
    const Model::KeyTarget t = m.key_target(m.rkey_of(ref(uint8_t(RkeyBase::MwCur), h, 0)));
    if (t.ok && t.window) {
      same(t.addr, b.mw(h).addr, op, "window start", h);
      same(t.len, b.mw(h).len, op, "window length", h);
      same(t.zero_based, b.mw(h).zero_based, op, "window zero-basedness", h);
    }
    if (!seen.keys) continue;
    for (const uint8_t base : {uint8_t(RkeyBase::MwCur), uint8_t(RkeyBase::MwPrev)})
      for (const uint64_t delta : {uint64_t{0}, uint64_t{1}, uint64_t{255}})
        same(m.rkey_of(ref(base, h, delta)), b.resolve_rkey(ref(base, h, delta)), op,
             base == uint8_t(RkeyBase::MwCur) ? "window rkey" : "window's previous rkey", h);
  }
}

RC_GTEST_PROP(AdapterBook, AgreesWithTheModelAfterEveryOp, ()) {
  const Trace t = with_prologue(*gen_ops());
  const Profile p = any_profile();
  // Under rkey_update=completion the model's consumer copy waits for the
  // completion, while the adapter's (the provider's mw->rkey) moves at post;
  // under failed_bind=destroy the device's binding after a failed bind is
  // the device's business, unseen by the adapter.
  const Seen seen{p[Knob::rkey_update] == alt::rkey_update::post,
                  p[Knob::failed_bind] == alt::failed_bind::keep};
  Model m(p);
  m.reset(t.caps);
  Book b;
  b.begin(t.caps);
  for (const Op& op : t.ops) {
    if (op.code == OpCode::det_bind) break;  // the adapter answers UNSUPPORTED: the runs part
    int16_t book_key = kNoKey;
    const Outcome o = verbs::mirror_step(m, b, op, book_key);
    if (seen.keys && book_key != kNoKey) same(o.key, book_key, op, "bind key outcome", 0);
    check(m, b, t.caps, op, seen);
  }
}

}  // namespace
}  // namespace mwc::props
