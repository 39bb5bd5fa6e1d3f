// The replay's data path, shaped like a NIC's: a peer's RDMA read, write or
// atomic through the current key of a window or an MR is checked against flat
// per-slot copies (QP word; a check word per window and MR, derived from the
// rule templates with the window's MR folded in; what an atomic's alignment
// reads; an MR's fields). An op that runs on the model retakes the copies
// of the windows and MRs it names at once (the next access through them is
// likely; an MR's that changed makes the copies of the windows over it
// stale) and makes its QPs' stale, taken again when next read (a QP goes
// through several states in a row); a window made, ended or invalidated is marked
// stale too (a bind comes before its next access). What an op can change
// follows from its kind in the op table: only a Resource op (de)registers an
// MR (a bind counts its MR's windows, which no copy holds) or moves a QP's PD
// or kills it; a work request or a peer's request makes its QP's copy
// stale only when what the responder serves by (Model::responder_word) moved,
// as an error does; and a Poll op changes its QP's completion ring alone,
// which no copy holds; a peer's access changes no window or MR. The checks
// are the rule templates of rules.hpp (grants, remote_range_ok, translate,
// atomic_aligned) on those copies. A pass means the model would answer the
// usual success and change nothing; anything else (a refusal, a stale copy,
// an op of another shape) runs on the model itself. D is the rules' domain: a
// test breaks one template (broken_rules.hpp) to see the differential tests
// fail.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "refmodel/model.hpp"
#include "refmodel/rules.hpp"
#include "replay/usual_batch.hpp"

namespace mwc::replay {

template <class D = Concrete>
class FastPathT {
 public:
  // A fast path over `model` (reset for caps; outlives this). Allocates.
  FastPathT(Model& model, const Caps& caps)
      : model_(model),
        range_(model.remote_range_alt()),
        align_post_(model.atomic_align_alt() == alt::atomic_align_check::post),
        qps_(caps[4]),
        nqps_(caps[4]),
        responder_(caps[4], 0),
        qp_live_(caps[4], 0),
        wins_(caps[3]),
        mrs_(caps[2]),
        over_(caps[3] + caps[2]),
        hot_(caps[3] + caps[2]) {
    for (uint32_t i = 0; i < over_.size(); ++i) over_[i] = OverLink{i, i};
  }

  // Returns whether op c is a peer's access (RDMA read, write, atomic): in
  // the op table, a Remote op that names an address behind its key.
  static constexpr bool is_access(OpCode c) {
    switch (c) {
#define MWC_IS_ADDR(kind, fname, mode, use, def, lo, hi) || FieldKind::kind == FieldKind::Addr
#define OP(name, bin, kind, summary) \
  case OpCode::name:                 \
    return OpKind::kind == OpKind::Remote && (false MWC_FIELDS_##name(MWC_IS_ADDR));
      MWC_OPS(OP)
#undef OP
#undef MWC_IS_ADDR
    }
    return false;
  }

  // Returns whether a hot op through the key `key` of object h (a window
  // for MwCur, an MR for Mr; the address an offset into the same object)
  // passes every check, and so succeeds with no change of state. False:
  // ask the model (also for a zero-length read or write, which the model
  // serves without any check: its rule is another, IBTA C9-88).
  [[gnu::always_inline, gnu::flatten]] bool pass(uint32_t qp, RkeyBase key, uint32_t h,
                                                 uint64_t off, uint64_t len, uint32_t right,
                                                 bool atomic) {
    if (len == 0 && !atomic) [[unlikely]]
      return false;
    if (!(serves(qps_[qp]) & bit(right))) [[unlikely]]
      if (!fresh_qp(qp, right)) return false;
    if (key == RkeyBase::MwCur) {
      if (wins_[h].state != kOk) [[unlikely]]
        if (!fresh_win(h)) return false;
      // The window's check word decides PD, owner QP, right and bounds
      // (derive_hot() holds it to the rule templates); offsets and lengths
      // wider than it takes ask the model.
      if ((off | len) > 0xffffffff ||
          !pass_words(qps_[qp], hot_[h], static_cast<uint32_t>(off), static_cast<uint32_t>(len), bit(right)))
        return false;
      if (!atomic) return true;
      // An atomic is aligned where the responder translated it, and (post)
      // as the requester sent it: a zero-based window's offset.
      const WinSlot& s = wins_[h];
      const uint64_t raddr = layout::window_base<D>(s.zb, s.addr) + off;  // Addr{Mw, h, off}
      return rules::atomic_aligned<D>(rules::translate<D>(raddr, s.zb, s.addr)) &&
             (!align_post_ || rules::atomic_aligned<D>(raddr));
    }
    if (key == RkeyBase::Mr) {
      const auto pd = static_cast<uint32_t>((qps_[qp].word & kIdBits) >> kPdShift);
      const MrSlot& s = mrs_[h];
      const uint64_t raddr = s.iova + off;  // Addr{Mr, h, off}
      return s.ok && s.pd == pd && rules::grants<D>(s.access, right) &&
             rules::range_within<D>(raddr, len, s.iova, s.len) &&
             (!atomic || rules::atomic_aligned<D>(raddr));
    }
    return false;
  }

  // Returns the outcome of op: the usual success when the fast path passes
  // it, else the model's (and the copies of what it names refreshed).
  Outcome step(const Op& op) {
    uint32_t right = 0;
    bool atomic = false;
    switch (op.code) {
      case OpCode::peer_write: right = acc::REMOTE_WRITE; break;
      case OpCode::peer_read: right = acc::REMOTE_READ; break;
      case OpCode::peer_fetch_add:
      case OpCode::peer_cmp_swap: right = acc::REMOTE_ATOMIC, atomic = true; break;
      default: return slow(op);
    }
    const Arg &key = op.a[1], &addr = op.a[2];
    const auto kb = static_cast<RkeyBase>(key.tag);
    const AddrBase at = kb == RkeyBase::Mr ? AddrBase::Mr : AddrBase::Mw;
    const bool shaped = (kb == RkeyBase::MwCur || kb == RkeyBase::Mr) && key.v == 0 &&
                        addr.tag == static_cast<uint8_t>(at) && addr.h == key.h;
    const uint64_t len = atomic ? 8 : op.a[3].v;
    // The record loop's check first, where a compact record could hold the op.
    const bool hot = shaped && !atomic && addr.v <= 0xffffffff && len <= 0xffff &&
                     pass_hot(hot_view(), op.a[0].h, slot_of(kb, key.h),
                              static_cast<uint32_t>(addr.v), static_cast<uint32_t>(len), bit(right));
    if (hot) hot_hits_++;
    if (shaped && (hot || pass(op.a[0].h, kb, key.h, addr.v, len, right, atomic))) {
      ++hits_;
      return access_success();
    }
    return slow(op);
  }

  // The same for an op given as its typed view (args::<name>), as the
  // replay engine decodes a full record: no uniform Op in between.
  template <class View>
  Outcome run(const View& v) {
    constexpr OpCode c = View::code;
    if constexpr (is_access(c)) {
      constexpr bool atomic = c == OpCode::peer_fetch_add || c == OpCode::peer_cmp_swap;
      constexpr uint32_t right = c == OpCode::peer_write  ? acc::REMOTE_WRITE
                                 : c == OpCode::peer_read ? acc::REMOTE_READ
                                                          : acc::REMOTE_ATOMIC;
      uint64_t len = 8;
      if constexpr (!atomic) len = v.len;
      const auto kb = static_cast<RkeyBase>(v.rkey.tag);
      const AddrBase at = kb == RkeyBase::Mr ? AddrBase::Mr : AddrBase::Mw;
      if ((kb == RkeyBase::MwCur || kb == RkeyBase::Mr) && v.rkey.v == 0 &&
          v.addr.tag == static_cast<uint8_t>(at) && v.addr.h == v.rkey.h &&
          pass(v.qp, kb, v.rkey.h, v.addr.v, len, right, atomic)) {
        ++hits_;
        return access_success();
      }
    }
    return slow(v);
  }

  // Returns the model's outcome of the op of typed view v, and the copies
  // of what it names taken again or made stale, as slow(const Op&) does.
  template <class View>
  Outcome slow(const View& v) {
    const HeldOutcome o(model_.step(v));
    last_mr_ = last_win_ = kNoHandle;
    touch_view(v);
    return o.get();
  }

  // Returns the model's outcome of op; the copies of every object op names
  // (its handles, its addresses' bases, its keys' objects) and its kind
  // can change are taken again (windows, MRs) or made stale (QPs).
  Outcome slow(const Op& op) {
    const HeldOutcome o(model_.step(op));
    last_mr_ = last_win_ = kNoHandle;
    switch (op.code) {
#define MWC_TOUCH(kind, fname, mode, use, def, lo, hi) touch<FieldKind::kind, K, A>(op.a[i++]);
#define OP(name, bin, kind, summary)          \
  case OpCode::name: {                        \
    [[maybe_unused]] constexpr OpKind K = OpKind::kind; \
    [[maybe_unused]] constexpr bool A = is_access(OpCode::name); \
    int i = 0;                                \
    MWC_FIELDS_##name(MWC_TOUCH)              \
    (void)i;                                  \
    break;                                    \
  }
      MWC_OPS(OP)
#undef OP
#undef MWC_TOUCH
    }
    return o.get();
  }

  // Returns how many ops passed the fast path.
  uint64_t hits() const { return hits_; }
  // Returns how many of them the record loop's check word passed.
  uint64_t hot_hits() const { return hot_hits_; }

  // The record loop's tables as plain pointers, so that a loop over
  // compact records keeps them in registers: a check word per key's object
  // (the windows' current keys, then the MRs' keys) and the QP words.
  // QP and window copies are stale (to be taken from the model when read)
  // until first read; a QP's also after an op names it.
  struct HotSlot;
  struct QpWord;
  struct HotView {
    const HotSlot* slots;
    const QpWord* qps;
  };
  // Returns the tables' view (valid until the fast path is destroyed).
  HotView hot_view() const { return {hot_.data(), qps_.data()}; }
  // Returns the check-word index of object h named by key kind kb (MwCur or Mr).
  uint32_t slot_of(RkeyBase kb, uint32_t h) const {
    return kb == RkeyBase::Mr ? static_cast<uint32_t>(wins_.size()) + h : h;
  }
  // Returns whether a peer read or write (rbit: bit(right)) by QP qp
  // through check word `slot`, at offset off of len bytes, passes on the
  // check words alone: the same answer as pass() where it says yes. No
  // says nothing: ask pass(). Handles must be below their caps.
  [[gnu::always_inline]] static bool pass_hot(const HotView& v, uint32_t qp, uint32_t slot,
                                              uint32_t off, uint32_t len, uint8_t rbit) {
    return pass_words(v.qps[qp], v.slots[slot], off, len, rbit);
  }
  // The same on the QP's word and the key object's check word themselves
  // (usual_batch.hpp's pass_words, which the batch states lane by lane).
  [[gnu::always_inline]] static bool pass_words(const QpWord& q, const HotSlot& s, uint32_t off,
                                                uint32_t len, uint8_t rbit) {
    return replay::pass_words(q.word, s.word, off, len, rbit);
  }
  // Returns the QP-word bit of a remote right.
  static constexpr uint8_t bit(uint32_t right) {
    return right == acc::REMOTE_WRITE ? 1 : right == acc::REMOTE_READ ? 2 : 4;
  }
  // A QP as check words name it: its PD and handle (kIdBits). A QP that
  // dies (destroy_qp names only the QP, and a QP made again has the same
  // handle) ended the bindings of the type 2 windows bound to it: their
  // copies are forgotten then (forget_windows_of()).
  static constexpr uint64_t identity(uint32_t pd, uint32_t qp) {
    return (pd & kHandleBits) << kPdShift | (qp & kHandleBits);
  }
  static constexpr uint64_t kPdOnly = kIdBits & ~kHandleBits;  // a mask: any QP of the PD
  static_assert(kMaxCap[static_cast<int>(HandleKind::Pd)] - 1 <= kHandleBits &&
                    kMaxCap[static_cast<int>(HandleKind::Qp)] - 1 <= kHandleBits,
                "an identity holds every PD's and QP's handle");
  // A QP's copy, in one qword (usual_batch.hpp): its identity and the
  // rights its responder serves; stale (kTopBit, no rights) until taken.
  struct QpWord {
    uint64_t word = kTopBit;
  };
  // Returns the rights (bit(right)) QP word q says its responder serves.
  static uint8_t serves(const QpWord& q) { return static_cast<uint8_t>(q.word >> kRightsShift & 7); }
  // A key's object as the record loop checks it, in one qword
  // (usual_batch.hpp), derived from the slot pass() reads by the rule
  // templates (derive_hot): the PD and owner QP the requester must match,
  // the rights granted and the end of the offsets inside; no rights while
  // stale, refused, or not derivable (a window's also from when its MR
  // changes: forget_windows_over()).
  struct HotSlot {
    uint64_t word = 0;
  };

 private:
  enum : uint8_t { kRefused, kOk, kStale };
  // What a window's check word leaves out, in 16 bytes (a quarter of a
  // cache line: the table stays small): whether the copy is valid, what an
  // atomic's alignment reads, and the QP a type 2 window is bound to.
  struct WinSlot {
    uint64_t addr = 0;
    uint8_t state = kStale;
    bool zb = false;
    bool owned = false;  // bound to QP qp (type 2)
    uint16_t qp = 0;
  };
  static_assert(sizeof(WinSlot) == 16);
  struct MrSlot {
    bool ok = false;
    uint32_t pd = 0, access = 0, rkey = 0;
    uint64_t iova = 0, len = 0;
    friend bool operator==(const MrSlot&, const MrSlot&) = default;
  };

  // Marks what one field of a typed view names (handles, addresses, keys).
  template <FieldKind K, OpKind O, bool A, class T>
  void touch_field(const T& x) {
    if constexpr (is_handle(K)) touch<K, O, A>(Arg{0, x, 0});
    else if constexpr (K == FieldKind::Addr || K == FieldKind::Rkey) touch<K, O, A>(x);
  }
#define MWC_TOUCH_V(kind, fname, mode, use, def, lo, hi) \
  touch_field<FieldKind::kind, K, A>(v.fname);
#define OP(name, bin, kind, summary)                          \
  void touch_view(const args::name& v) {                      \
    [[maybe_unused]] constexpr OpKind K = OpKind::kind;       \
    [[maybe_unused]] constexpr bool A = is_access(OpCode::name); \
    MWC_FIELDS_##name(MWC_TOUCH_V)                            \
  }
  MWC_OPS(OP)
#undef OP
#undef MWC_TOUCH_V

  // Retakes the copy of what field `a` of an op of kind O names (a QP's:
  // makes it stale), where an op of that kind can change it; A: the op is
  // a peer's access.
  template <FieldKind K, OpKind O, bool A>
  void touch(const Arg& a) {
    constexpr bool mrs = O == OpKind::Resource;  // (de)registers MRs
    if constexpr (K == FieldKind::Qp && O == OpKind::Resource) {
      if (a.h < nqps_) {
        qps_[a.h] = QpWord{};
        const bool live = model_.qp_live(a.h);
        if (qp_live_[a.h] && !live) forget_windows_of(a.h);
        qp_live_[a.h] = live;
      }
    } else if constexpr (K == FieldKind::Qp && O != OpKind::Poll) {
      // Only a Resource op moves a QP's PD or kills it; a work request or
      // a peer's request may move what its responder serves (an error).
      if (a.h < nqps_ && responder_[a.h] != model_.responder_word(a.h)) qps_[a.h] = QpWord{};
    } else if constexpr (K == FieldKind::Mw && O == OpKind::Resource) {
      forget_win(a.h);  // made or ended
    } else if constexpr (K == FieldKind::Mw) {
      retake_win<A>(a.h);
    } else if constexpr (K == FieldKind::Mr && mrs) {
      retake_mr(a.h);
    } else if constexpr (K == FieldKind::Addr) {
      if (a.tag == static_cast<uint8_t>(AddrBase::Mw)) retake_win<A>(a.h);
      if (mrs && a.tag == static_cast<uint8_t>(AddrBase::Mr)) retake_mr(a.h);
    } else if constexpr (K == FieldKind::Rkey) {
      // Keys keep their object's index: a raw key names it by index. A
      // window's key that is no access's is one an invalidation names.
      if (a.tag == static_cast<uint8_t>(RkeyBase::Mr)) {
        if (mrs) retake_mr(a.h);
      } else if (a.tag != static_cast<uint8_t>(RkeyBase::Raw)) {
        A ? retake_win<A>(a.h) : forget_win(a.h);
      } else if (const layout::KeyObject k = layout::key_object(a.h); k.window) {
        A ? retake_win<A>(k.h) : forget_win(k.h);
      } else if (mrs) {
        retake_mr(k.h);
      }
    }
  }
  // A window an op named is used next, as a rule: taken again at once, so
  // that its next access passes the record loop's check word. A peer's
  // access changes no window (the model's remote() writes its QP alone):
  // after one (Access), a copy is taken again only when it is stale
  // (never taken, or an MR under it moved).
  template <bool Access>
  void retake_win(uint32_t h) {
    if (h >= wins_.size() || h == last_win_) return;
    if (Access && wins_[h].state != kStale) return;
    refresh_win(h), last_win_ = h;
  }
  // A window an op made, ended or invalidated is unbound after it, as a
  // rule, and bound again (so taken again) before its next access: its
  // copy is marked stale, not taken.
  void forget_win(uint32_t h) {
    if (h < wins_.size()) wins_[h].state = kStale, hot_[h] = HotSlot{};
  }
  // Makes the copies of the type 2 windows bound to QP qp stale: it died.
  // Once per QP's life, as the model's destroy_qp walks every window.
  void forget_windows_of(uint32_t qp) {
    for (uint32_t h = 0; h < wins_.size(); ++h)
      if (wins_[h].state != kStale && wins_[h].owned && wins_[h].qp == qp)
        forget_win(h);
  }
  // Lists window h over MR mr (kNoHandle: over none), taking it off the
  // list it was on. Without a branch: whether a window was listed, and
  // where, follows no pattern a predictor could learn.
  void list_over(uint32_t h, uint32_t mr) {
    OverLink& o = over_[h];
    // Off its list (a window on no list links to itself: no change).
    over_[o.prev].next = o.next, over_[o.next].prev = o.prev;
    o = OverLink{h, h};
    // Onto mr's after its head; over none, after itself: linked to itself.
    const uint32_t head = mr == kNoHandle ? h : list_of(mr);
    const uint32_t next = over_[head].next;
    o = OverLink{head, next};
    over_[next].prev = h, over_[head].next = h;
  }
  // Makes the copies of the windows over MR mr stale: it changed.
  void forget_windows_over(uint32_t mr) {
    const uint32_t head = list_of(mr);
    for (uint32_t h = over_[head].next; h != head;) {
      const uint32_t next = over_[h].next;
      over_[h] = OverLink{h, h};
      forget_win(h);
      h = next;
    }
    over_[head] = OverLink{head, head};
  }
  // Returns the index in over_ of the head of MR mr's list.
  uint32_t list_of(uint32_t mr) const { return static_cast<uint32_t>(wins_.size()) + mr; }
  // MRs change seldom, and windows copy them: taken again at once.
  void retake_mr(uint32_t h) {
    if (h < mrs_.size() && h != last_mr_) refresh_mr(h), last_mr_ = h;
  }
  // Returns whether QP qp serves `right`, its copy taken again if stale.
  [[gnu::noinline, gnu::cold]] bool fresh_qp(uint32_t qp, uint32_t right) {
    if (!(qps_[qp].word & kTopBit)) return false;
    refresh_qp(qp);
    return serves(qps_[qp]) & bit(right);
  }
  // Returns whether window h's copy is valid, taken again if stale.
  [[gnu::noinline, gnu::cold]] bool fresh_win(uint32_t h) {
    if (wins_[h].state != kStale) return false;
    refresh_win(h);
    return wins_[h].state == kOk;
  }
  void refresh_qp(uint32_t h) {
    uint64_t rights = 0;
    for (const uint32_t r : {acc::REMOTE_WRITE, acc::REMOTE_READ, acc::REMOTE_ATOMIC})
      if (model_.serves(h, r)) rights |= bit(r);
    qps_[h].word = identity(model_.qp_pd(h), h) | rights << kRightsShift;
    responder_[h] = model_.responder_word(h);
  }
  // Flattened, as the rule templates they hold the check words to are
  // called twice per copy taken.
  [[gnu::flatten]] void refresh_win(uint32_t h) {
    const uint32_t rkey = model_.rkey_of(Arg{0, h, static_cast<uint8_t>(RkeyBase::MwCur)});
    const Model::KeyTarget t = model_.key_target(rkey);
    // Only the window's own slot: the current key names window h itself.
    const bool ok = t.ok && t.window && layout::rkey_index(rkey) == layout::mw_index(h);
    const auto qp = static_cast<uint16_t>(t.owner < nqps_ ? t.owner : 0);
    wins_[h] = WinSlot{t.addr, ok ? kOk : kRefused, t.zero_based, t.owner != kNoHandle, qp};
    list_over(h, ok ? t.mr : kNoHandle);
    // Inside the window (unless only the MR counts) and its MR's part after it.
    const uint64_t mr_end = t.mr_iova + t.mr_len;
    const uint64_t in_mr = t.addr >= t.mr_iova && mr_end > t.addr ? mr_end - t.addr : 0;
    const bool mr_only = range_ == alt::remote_range::mr_only;
    derive_hot(h, ok, identity(t.pd, qp), t.owner == kNoHandle ? kPdOnly : kIdBits, t.access,
               layout::window_base<D>(t.zero_based, t.addr), t.addr, mr_only ? in_mr : std::min(in_mr, t.len),
               [&](uint64_t raddr, uint64_t len) {
                 return rules::remote_range_ok<D>(raddr, len, t.zero_based, t.addr, t.len, t.mr_iova, t.mr_len,
                                                  range_);
               });
  }
  [[gnu::flatten]] void refresh_mr(uint32_t h) {
    const uint32_t rkey = model_.rkey_of(Arg{0, h, static_cast<uint8_t>(RkeyBase::Mr)});
    const Model::KeyTarget t = model_.key_target(rkey);
    const MrSlot now{t.ok && !t.window, t.pd, t.access, rkey, t.addr, t.len};
    // The windows over it copied it: a change makes their copies stale.
    if (now == mrs_[h]) return;
    mrs_[h] = now;
    forget_windows_over(h);
    derive_hot(slot_of(RkeyBase::Mr, h), now.ok, identity(now.pd, 0), kPdOnly, now.access, now.iova,
               now.iova, now.len, [&](uint64_t raddr, uint64_t len) {
                 return rules::range_within<D>(raddr, len, now.iova, now.len);
               });
  }

  // Sets check word `slot` for an object whose requester must match `who`
  // under `who_mask` (identity(): its PD, and a type 2 window's owner QP)
  // granting `access`, whose offset off is the remote
  // address base + off and the MR address va + off, checked by
  // in_range(raddr, len): the rule templates' answer. `end` is the end of
  // the offsets inside as the object's bounds give it; the templates must
  // agree at its edge ([0, end) inside, [0, end + 1) not: bounds linear in
  // off + len, with no address wrapping, are pinned by that), else no
  // rights and every access asks pass(). An end past kEndCap is held as
  // kEndCap: accesses beyond it ask pass() too.
  template <class InRange>
  void derive_hot(uint32_t slot, bool ok, uint64_t who, uint64_t who_mask, uint32_t access,
                  uint64_t base, uint64_t va, uint64_t end, InRange in_range) {
    HotSlot& x = hot_[slot];
    x = HotSlot{};
    constexpr uint64_t kReach = uint64_t{1} << 33;  // off + len of a compact record stays below
    if (!ok || end == 0 || base > ~uint64_t{0} - kReach || va > ~uint64_t{0} - kReach) return;
    end = end < kEndCap ? end : kEndCap;
    if (!in_range(base, end) || (end < kEndCap && in_range(base, end + 1))) return;
    uint64_t rights = 0;
    for (const uint32_t r : {acc::REMOTE_WRITE, acc::REMOTE_READ, acc::REMOTE_ATOMIC})
      if (rules::grants<D>(access, r)) rights |= bit(r);
    x.word = (who & kIdBits) | end << kEndShift | rights << kRightsShift |
             uint64_t{who_mask == kPdOnly} << kAnyQpShift;
  }

  Model& model_;
  uint8_t range_;
  bool align_post_;  // a misaligned atomic is refused at post, as sent
  std::vector<QpWord> qps_;
  uint32_t nqps_;  // qps_.size(), without working it out per op
  std::vector<uint32_t> responder_;  // Model::responder_word() of each QP when its copy was taken
  std::vector<uint8_t> qp_live_;     // whether each QP was live after the last op that named it
  std::vector<WinSlot> wins_;
  std::vector<MrSlot> mrs_;
  // The windows whose valid copies were taken over each MR, a circular
  // list per MR, so that the MR's change makes them stale at once instead
  // of every access asking whether it changed: by window, then a head per
  // MR (list_of()); a window on no list and an empty list link to
  // themselves.
  struct OverLink {
    uint32_t prev, next;
  };
  std::vector<OverLink> over_;
  std::vector<HotSlot> hot_;      // windows, then MRs
  uint32_t last_mr_ = kNoHandle;  // the MR the op being touched refreshed last
  uint32_t last_win_ = kNoHandle;  // and the window
  uint64_t hits_ = 0, hot_hits_ = 0;
};

using FastPath = FastPathT<>;
// run() and step() give each access its right by name: the table's
// accesses must be these four.
static_assert([] {
  int n = 0;
  for (int c = 0; c < kOpCount; ++c) n += FastPath::is_access(static_cast<OpCode>(c));
  return n == 4 && FastPath::is_access(OpCode::peer_write) && FastPath::is_access(OpCode::peer_read) &&
         FastPath::is_access(OpCode::peer_fetch_add) && FastPath::is_access(OpCode::peer_cmp_swap);
}());

}  // namespace mwc::replay
