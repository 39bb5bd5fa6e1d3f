// The layout of keys and addresses, written once: how an rkey (or lkey)
// splits into an object index and a key byte, which index the model gives
// each MR and window, where trace buffers live, and how addresses go
// through iovas and zero-based windows. The model, the rules, the proofs,
// the device adapter, the recorder, the replay and the exports call these.
// What the prover needs is a template over a value domain D, as in
// rules.hpp (D provides U64, Bool, lit() and ite()); Plain is the default.
#pragma once
#include <cstdint>

#include "refmodel/field.hpp"
#include "refmodel/vocab.hpp"

namespace mwc {

// The plain integer domain (rules.hpp's Concrete adds decide() to it).
struct Plain {
  using U64 = uint64_t;
  using Bool = bool;
  static constexpr U64 lit(uint64_t v) { return v; }
  static constexpr Bool ule(U64 a, U64 b) { return a <= b; }
  static constexpr Bool ult(U64 a, U64 b) { return a < b; }
  template <class T>
  static constexpr T ite(Bool c, T a, T b) { return c ? a : b; }
};

namespace layout {

// ---- rkeys and lkeys: a 24-bit index above an 8-bit key byte (ibv_inc_rkey) ----

// The unit Linux pins registered memory in (x86-64; buffers start on one).
inline constexpr uint64_t kPage = 4096;
inline constexpr unsigned kKeyBits = 8;
inline constexpr uint64_t kKeyMask = 0xff;
inline constexpr uint64_t kIndexMask = 0xffffff00;

// Returns the key byte of rkey.
template <class D = Plain>
typename D::U64 key_byte(typename D::U64 rkey) {
  return rkey & D::lit(kKeyMask);
}
// Returns rkey with its key byte cleared: the index, in place.
template <class D = Plain>
typename D::U64 index_bits(typename D::U64 rkey) {
  return rkey & D::lit(kIndexMask);
}
// Returns rkey's index with the key byte of `key`.
template <class D = Plain>
typename D::U64 with_key_byte(typename D::U64 rkey, typename D::U64 key) {
  return index_bits<D>(rkey) | key_byte<D>(key);
}
// Returns the index of rkey.
constexpr uint32_t rkey_index(uint32_t rkey) { return rkey >> kKeyBits; }
// Returns the rkey of an index and a key byte.
constexpr uint32_t make_rkey(uint32_t index, uint8_t key) { return index << kKeyBits | key; }
// Returns whether two rkeys name the same object (whatever their key bytes).
constexpr bool same_index(uint32_t a, uint32_t b) { return rkey_index(a) == rkey_index(b); }
// Returns how far rkey's key byte moved from `from`, modulo 256: a bind's
// key outcome, counted from the byte the window had when allocated.
constexpr uint8_t key_moved(uint32_t rkey, uint8_t from) {
  return static_cast<uint8_t>(rkey - from);
}
// Returns the key byte a BIND_MW work request asks for: relative to the
// consumer's current rkey, or absolute, counted from the window's key byte
// when allocated (a device's is its own; so a trace means the same on all).
constexpr uint8_t wr_key_byte(const Arg& key, uint32_t cur_rkey, uint8_t alloc_byte) {
  const uint64_t from = static_cast<KeyBase>(key.tag) == KeyBase::Rel ? cur_rkey : alloc_byte;
  return static_cast<uint8_t>(from + key.v);
}

// ---- the model's index spaces ----

// MR h has index h+1 (index 0 names nothing); window h has kMwIndexBit | h.
inline constexpr uint32_t kMwIndexBit = 0x800000u;
constexpr uint32_t mr_index(uint32_t h) { return h + 1; }
constexpr uint32_t mw_index(uint32_t h) { return kMwIndexBit | h; }
// Returns the model's rkey of MR h, or window h, with key byte `key`.
constexpr uint32_t mr_rkey(uint32_t h, uint8_t key) { return make_rkey(mr_index(h), key); }
constexpr uint32_t mw_rkey(uint32_t h, uint8_t key) { return make_rkey(mw_index(h), key); }
// The object an rkey's index names in the model.
struct KeyObject {
  bool window;
  uint32_t h;  // kNoHandle: index 0, which names no MR
};
// Returns the object rkey names by its index (whatever its key byte).
constexpr KeyObject key_object(uint32_t rkey) {
  const uint32_t idx = rkey_index(rkey);
  if (idx & kMwIndexBit) return {true, idx & ~kMwIndexBit};
  return {false, idx == 0 ? kNoHandle : idx - 1};
}

// ---- trace buffers: buffer i starts at kBufBase + i * 2^32 ----
// (so buffers never overlap: one is at most 4 GiB)

inline constexpr uint64_t kBufBase = 0x100000000000ull;
inline constexpr unsigned kBufShift = 32;
// Returns where buffer h starts.
constexpr uint64_t buf_va(uint32_t h) { return kBufBase + (uint64_t{h} << kBufShift); }
// Returns the buffer whose slot holds va (kNoHandle below the first).
constexpr uint32_t buf_of(uint64_t va) {
  return va < kBufBase ? kNoHandle : static_cast<uint32_t>((va - kBufBase) >> kBufShift);
}

// ---- addresses ----

// Returns an MR's iova, where its address space starts: 0 for a zero-based
// MR (ibv_reg_mr(3) IBV_ACCESS_ZERO_BASED; ibv_reg_mr_iova2 at 0), else
// the address it was registered at.
template <class D = Plain>
typename D::U64 mr_iova(typename D::U64 access, typename D::U64 va) {
  return D::ite((access & D::lit(acc::ZERO_BASED)) != D::lit(0), D::lit(0), va);
}
// Returns an MR's iova after ibv_rereg_mr with `flags`. ibv_rereg_mr(3):
// "conceptually, this call performs the functions deregister memory region
// followed by register memory region", with the access flags
// (IBV_REREG_MR_CHANGE_ACCESS) and the location (..._CHANGE_TRANSLATION)
// it changes and the others kept; so the iova is the registration's
// (mr_iova) of what is left: toggling ZERO_BASED moves it to 0 or back.
template <class D = Plain>
typename D::U64 iova_after_rereg(uint32_t flags, typename D::U64 old_access,
                                 typename D::U64 old_va, typename D::U64 new_access,
                                 typename D::U64 new_va) {
  return mr_iova<D>((flags & rereg::CHANGE_ACCESS) ? new_access : old_access,
                    (flags & rereg::CHANGE_TRANSLATION) ? new_va : old_va);
}
// Returns where a trace's offsets into a window start (w0+16): 0 for a
// zero-based window, which takes offsets, else its first address.
template <class D = Plain>
typename D::U64 window_base(typename D::Bool zero_based, typename D::U64 addr) {
  return D::ite(zero_based, D::lit(0), addr);
}
// Returns the local virtual address that address a of an MR names (the MR
// registered at va, its address space starting at iova).
template <class D = Plain>
typename D::U64 mr_local(typename D::U64 a, typename D::U64 iova, typename D::U64 va) {
  return va + (a - iova);
}

}  // namespace layout
}  // namespace mwc
