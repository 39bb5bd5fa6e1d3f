// The security invariants the trace prover (trace_search.hpp) checks after
// every op of every trace, and the record they are judged against: what
// the sources say each rkey grants, kept from the ops and their outcomes
// (a binding starts when a bind succeeds, ends when the window is
// invalidated, rebound or freed, or its MR deregistered). The record is no
// second model: it decides nothing, it remembers what the model's own
// outcomes said happened and states what must then hold, in plain
// arithmetic, never through the rule templates (a broken template must not
// break the yardstick too).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "refmodel/model.hpp"

#define MWC_TRACE_INVARIANTS(I)                                                                    \
  I(grant_inside, "grant.inside", "IBTA C10-75, o10-37.2; ibv_bind_mw(3)",                         \
    "every remote access granted lies inside a live binding (window rkey) or a live MR (MR "       \
    "rkey), in the requester's PD, within the rights granted, an atomic 8-aligned")                \
  I(revoked_nothing, "revoked.nothing", "IBTA 10.6.7.2; ibv_bind_mw(3); ibv_post_send(3)",         \
    "after an invalidation, a rebind, a deallocation or a deregistration the old rkey grants "     \
    "nothing (up to the 8-bit key wrap)")                                                          \
  I(type2_own_qp, "type2.own_qp", "IBTA 10.6.7.2 (type 2B windows)",                               \
    "a type 2 window serves only the QP it is bound to: no other QP accesses or invalidates it")   \
  I(dead_mr, "dereg.no_window", "ibv_alloc_mw(3) NOTES; IBTA 10.6.7.2.6",                          \
    "no window grants into memory whose MR has been deregistered")                                 \
  I(failed_bind, "bind.failed", "IBTA 10.6.7.2; ibv_bind_mw(3) RETURN VALUE",                      \
    "a failed bind leaves the window with its old binding or with none, as the profile says, "     \
    "never a mixture")                                                                             \
  I(valid_objects, "bind.valid", "IBTA C10-73, C10-74, C10-75; ibv_bind_mw(3); ibv_reg_mr(3)",     \
    "every registration and binding made is one the sources allow (access, PD, range)")

namespace mwc::smt {
#ifdef MWCHECK_BREAKABLE_MODEL
inline namespace breakable {
#endif

enum class Invariant : uint8_t {
#define I(ident, name, src, stmt) ident,
  MWC_TRACE_INVARIANTS(I)
#undef I
};
inline constexpr int kInvariantCount = 0
#define I(ident, name, src, stmt) +1
    MWC_TRACE_INVARIANTS(I)
#undef I
    ;
struct InvariantDesc {
  std::string_view name, source, statement;
};
// Returns an invariant's name, citation and statement.
const InvariantDesc& invariant_desc(Invariant i);

// Returns the alternative of knob k an invariant judges by under profile p:
// p's own where it is a reading of the sources, the first profile's (ibta)
// where p's is a deviation. A description never makes a deviation hold.
uint8_t yardstick(const Profile& p, Knob k);

struct Violation {
  Invariant invariant{};
  std::string what;  // in words, with the objects' names
};

// What the sources say an rkey grants: a live registration or binding.
struct Grant {
  bool live = false, window = false, zero_based = false;
  uint32_t rkey = 0, pd = 0, access = 0;
  uint32_t mr = kNoHandle;  // a window's MR (an MR's own handle)
  uint32_t qp = kNoHandle;  // a type 2 window's QP
  uint64_t lo = 0, len = 0;  // window: addr, len; MR: iova, len
};

// Why an rkey that once granted grants no more.
enum class Ended : uint8_t { no, revoked, mr_gone };

class Ghost {
 public:
  // Clears the record for a trace's caps.
  void reset(const Caps& caps);
  // Records op (run on `before`, giving `o` and `after`) and returns the
  // first invariant the op itself broke, if any: bind.valid, bind.failed,
  // revoked.nothing (a key reissued), type2.own_qp (an invalidation).
  std::optional<Violation> step(const Op& op, const Model& before, const Model& after,
                                const Outcome& o, const Profile& yard);
  // Returns the live grant of rkey, or nullptr.
  const Grant* grant(uint32_t rkey) const;
  // Returns whether (and why) rkey once granted and grants no more.
  Ended ended(uint32_t rkey) const;
  // Returns every rkey worth probing: live, ended, and each live window's
  // next key (a guess).
  std::vector<uint32_t> keys(const Model& m) const;
  // Appends the record to `out` (for the prover's visited set).
  void append_state(std::string& out) const;

 private:
  void end(Grant& g, Ended why);
  std::optional<Violation> start(Grant g, uint32_t slot);
  std::vector<Grant> grants_;  // MR h at h, window h at mrs + h
  std::vector<uint64_t> bufs_;  // each declared buffer's length (0: none)
  uint32_t mrs_ = 0;
  std::vector<uint8_t> mw_type_;
  std::vector<uint32_t> mw_pd_;
  std::vector<std::pair<uint32_t, Ended>> ended_;  // sorted by rkey
};

#ifdef MWCHECK_BREAKABLE_MODEL
}  // namespace breakable
#endif
}  // namespace mwc::smt
