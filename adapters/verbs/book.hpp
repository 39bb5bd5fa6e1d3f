// What the trace's names mean on the device, as the verbs adapter keeps it:
// each MR's device rkey, address, iova and access; each window's rkeys (the
// consumer's copy and the one before) and binding. No device here: the
// session feeds it what the device returned, and tests feed it the model's.
// Every computation is refmodel/layout.hpp's or a rule template's, so that
// the adapter means by a trace what the model means.
#pragma once
#include <cstdint>
#include <vector>

#include "refmodel/field.hpp"
#include "refmodel/trace.hpp"

namespace mwc::verbs {

class Book {
 public:
  struct Mr {
    bool live = false;
    uint32_t rkey = 0, access = 0;  // access: the trace's bits
    uint64_t va = 0, len = 0, iova = 0;
  };
  struct Mw {
    bool live = false, bound = false, zero_based = false;
    uint8_t alloc_byte = 0;       // the key byte the device gave it
    uint32_t cur = 0, prev = 0;   // the consumer's copy of the rkey, and the one before
    uint32_t mr = kNoHandle;      // while bound
    uint64_t addr = 0, len = 0;   // while bound
  };

  // Sizes the tables for a trace's caps.
  void begin(const Caps& caps);

  // MR h registered at va with the trace's `access` bits; `rkey` the device's.
  void reg(uint32_t h, uint32_t rkey, uint32_t access, uint64_t va, uint64_t len);
  // MR h reregistered with `flags` (ibv_rereg_mr succeeded).
  void rereg(uint32_t h, uint32_t flags, uint32_t access, uint64_t va, uint64_t len);
  void dereg(uint32_t h) { mrs_[h].live = false; }

  // Window h allocated with device rkey `rkey`.
  void alloc_mw(uint32_t h, uint32_t rkey);
  // Window h deallocated (its rkeys stay, as stale copies a trace may use).
  void dealloc_mw(uint32_t h);
  // Returns the rkey a BIND_MW work request on window h asks for with `key`.
  uint32_t wr_rkey(uint32_t h, const Arg& key) const;
  // The consumer's copy of window h's rkey is now `rkey` (a bind posted).
  void set_cur(uint32_t h, uint32_t rkey);
  // Window h's bind completed: bound to MR mr at [addr, addr+len) with
  // `access`, or (len 0) unbound. Returns the bind's key outcome.
  int16_t bound(uint32_t h, uint32_t mr, uint64_t addr, uint64_t len, uint32_t access);
  // The window whose current rkey is `rkey` was invalidated.
  void invalidated(uint32_t rkey);

  // Returns the address an address reference names now.
  uint64_t resolve(const Arg& a) const;
  // Returns the device rkey an rkey reference names now.
  uint32_t resolve_rkey(const Arg& r) const;
  // Returns the local address a remote access through device rkey `rkey`
  // at `raddr` reaches (raddr itself when the key names nothing known).
  uint64_t target_of(uint32_t rkey, uint64_t raddr) const;

  const Mr& mr(uint32_t h) const { return mrs_[h]; }
  const Mw& mw(uint32_t h) const { return mws_[h]; }

 private:
  // As the model keeps an unbound window: no MR, no range, no access.
  static void unbind(Mw& w);

  std::vector<Mr> mrs_;
  std::vector<Mw> mws_;
};

}  // namespace mwc::verbs
