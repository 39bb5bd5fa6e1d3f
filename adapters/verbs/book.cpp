#include "adapters/verbs/book.hpp"

#include "refmodel/layout.hpp"
#include "refmodel/rules.hpp"

namespace mwc::verbs {

void Book::begin(const Caps& caps) {
  mrs_.assign(caps[static_cast<int>(HandleKind::Mr)], Mr{});
  mws_.assign(caps[static_cast<int>(HandleKind::Mw)], Mw{});
}

void Book::reg(uint32_t h, uint32_t rkey, uint32_t access, uint64_t va, uint64_t len) {
  mrs_[h] = Mr{true, rkey, access, va, len, layout::mr_iova(access, va)};
}

void Book::rereg(uint32_t h, uint32_t flags, uint32_t access, uint64_t va, uint64_t len) {
  Mr& m = mrs_[h];
  m.iova = layout::iova_after_rereg(flags, m.access, m.va, access, va);
  if (flags & rereg::CHANGE_ACCESS) m.access = access;
  if (flags & rereg::CHANGE_TRANSLATION) m.va = va, m.len = len;
}

void Book::alloc_mw(uint32_t h, uint32_t rkey) {
  mws_[h] = Mw{};
  mws_[h].live = true;
  mws_[h].alloc_byte = static_cast<uint8_t>(layout::key_byte(rkey));
  mws_[h].cur = mws_[h].prev = rkey;
}

uint32_t Book::wr_rkey(uint32_t h, const Arg& key) const {
  const Mw& w = mws_[h];
  return static_cast<uint32_t>(
      rules::with_key<Concrete>(w.cur, layout::wr_key_byte(key, w.cur, w.alloc_byte)));
}

void Book::set_cur(uint32_t h, uint32_t rkey) {
  Mw& w = mws_[h];
  if (w.cur != rkey) w.prev = w.cur, w.cur = rkey;
}

void Book::unbind(Mw& w) {
  w.bound = w.zero_based = false;
  w.mr = kNoHandle;
  w.addr = w.len = 0;
}

void Book::dealloc_mw(uint32_t h) {
  mws_[h].live = false;
  unbind(mws_[h]);
}

int16_t Book::bound(uint32_t h, uint32_t mr, uint64_t addr, uint64_t len, uint32_t access) {
  Mw& w = mws_[h];
  unbind(w);
  if (len) {
    w.bound = true;
    w.mr = mr;
    w.addr = addr;
    w.len = len;
    w.zero_based = access & acc::ZERO_BASED;
  }
  return layout::key_moved(w.cur, w.alloc_byte);
}

void Book::invalidated(uint32_t rkey) {
  for (Mw& w : mws_)
    if (w.live && w.cur == rkey) unbind(w);
}

uint64_t Book::resolve(const Arg& a) const {
  switch (static_cast<AddrBase>(a.tag)) {
    case AddrBase::Raw: return a.v;
    case AddrBase::Buf: return layout::buf_va(a.h) + a.v;
    case AddrBase::Mr: return (a.h < mrs_.size() ? mrs_[a.h].iova : 0) + a.v;
    case AddrBase::Mw:
      if (a.h >= mws_.size()) return a.v;
      return layout::window_base(mws_[a.h].zero_based, mws_[a.h].addr) + a.v;
  }
  return a.v;
}

uint32_t Book::resolve_rkey(const Arg& r) const {
  uint32_t base = 0;
  switch (static_cast<RkeyBase>(r.tag)) {
    case RkeyBase::Raw: return r.h;  // a guess: passed to the device as it is
    case RkeyBase::MwCur: base = r.h < mws_.size() ? mws_[r.h].cur : 0; break;
    case RkeyBase::MwPrev: base = r.h < mws_.size() ? mws_[r.h].prev : 0; break;
    case RkeyBase::Mr: base = r.h < mrs_.size() ? mrs_[r.h].rkey : 0; break;  // kept after dereg
  }
  return static_cast<uint32_t>(rules::with_key<Concrete>(base, base + r.v));
}

uint64_t Book::target_of(uint32_t rkey, uint64_t raddr) const {
  for (const Mw& w : mws_) {
    if (!w.live || !w.bound || !layout::same_index(w.cur, rkey)) continue;
    // Through the window into its MR's address space, then to memory.
    const uint64_t a = rules::translate<Concrete>(raddr, w.zero_based, w.addr);
    if (w.mr >= mrs_.size() || !mrs_[w.mr].live) return a;
    return layout::mr_local(a, mrs_[w.mr].iova, mrs_[w.mr].va);
  }
  for (const Mr& m : mrs_)
    if (m.live && layout::same_index(m.rkey, rkey)) return layout::mr_local(raddr, m.iova, m.va);
  return raddr;
}

}  // namespace mwc::verbs
