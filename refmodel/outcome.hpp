// What an op did (Outcome), what a trace expects it to do (Pattern), and
// their text form: `OK`, `EPERM`, `IBV_WC_REM_ACCESS_ERR`,
// `IBV_WC_SUCCESS IBV_WC_BIND_MW`, `OK key=+1`, `EMPTY`.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "refmodel/rules.hpp"
#include "refmodel/vocab.hpp"

namespace mwc {

inline constexpr int16_t kNoKey = -1;

struct Outcome {
  Result ret = Result::kOK;
  WcStatus wc = WcStatus::kNONE;   // completion status, when the op has one
  WcOpcode wc_op = WcOpcode::kNONE;  // completion opcode (poll_cq)
  int16_t key = kNoKey;  // a successful bind: the window's key byte minus the
                         // key byte it had when allocated (mod 256)
  Rule rule = Rule::observed;  // the rule that decided the outcome (a device's: none)
  uint32_t knobs = 0;             // bit k: knob k was consulted
  // Outcomes compare by meaning: rule and knobs explain, they do not count.
  friend bool operator==(const Outcome& a, const Outcome& b) {
    return a.ret == b.ret && a.wc == b.wc && a.wc_op == b.wc_op && a.key == b.key;
  }
};

// Returns the outcome of these parts, put together as whole words. Set
// field by field (or bit_cast), an Outcome returned in registers is written
// to the stack a byte at a time and read back as one word, and that read
// stalls (a load that spans several stores waits for them to reach the
// cache): the model returns one per op. Copied from whole words, it is
// built in the registers it is returned in.
constexpr Outcome make_outcome(Result ret, WcStatus wc, WcOpcode wc_op, int16_t key, Rule rule,
                               uint32_t knobs) {
  Outcome o;
  if (std::is_constant_evaluated()) {
    o.ret = ret, o.wc = wc, o.wc_op = wc_op, o.key = key, o.rule = rule, o.knobs = knobs;
    return o;
  }
  const uint64_t lo = uint64_t{static_cast<uint8_t>(ret)} | uint64_t{static_cast<uint8_t>(wc)} << 8 |
                      uint64_t{static_cast<uint8_t>(wc_op)} << 16 | uint64_t{static_cast<uint16_t>(key)} << 32 |
                      uint64_t{static_cast<uint8_t>(rule)} << 48;
  std::memcpy(static_cast<void*>(&o), &lo, 8);
  o.knobs = knobs;
  return o;
}
// Returns the usual outcome of a peer's access that passes: OK and
// IBV_WC_SUCCESS, by rule remote_ok (in registers when called at run time).
constexpr Outcome access_success() {
  return make_outcome(Result::kOK, WcStatus::kIBV_WC_SUCCESS, WcOpcode::kNONE, kNoKey, Rule::remote_ok, 0);
}
// An outcome kept as the two words it is returned in, for a caller that
// holds one across calls: a local Outcome is kept a field at a time and
// read back whole, which stalls as above.
class HeldOutcome {
 public:
  explicit HeldOutcome(const Outcome& o) {
    std::memcpy(&lo_, static_cast<const void*>(&o), 8);
    std::memcpy(&hi_, reinterpret_cast<const char*>(&o) + 8, 4);
  }
  // Returns the outcome held.
  Outcome get() const {
    Outcome o;
    std::memcpy(static_cast<void*>(&o), &lo_, 8);
    std::memcpy(reinterpret_cast<char*>(&o) + 8, &hi_, 4);
    return o;
  }

 private:
  uint64_t lo_;
  uint32_t hi_;
};
// The layout make_outcome writes (little-endian hosts only).
static_assert(sizeof(Outcome) == 12 && offsetof(Outcome, wc) == 1 && offsetof(Outcome, wc_op) == 2 &&
              offsetof(Outcome, key) == 4 && offsetof(Outcome, rule) == 6 && offsetof(Outcome, knobs) == 8);

// An expected outcome; each part left out matches anything.
struct Pattern {
  std::optional<Result> ret;
  std::optional<WcStatus> wc;
  std::optional<WcOpcode> wc_op;
  std::optional<int16_t> key;
  friend bool operator==(const Pattern&, const Pattern&) = default;
};

// Returns whether an outcome matches a pattern.
bool matches(const Pattern& p, const Outcome& o);
// Returns the canonical text of an outcome or a pattern.
std::string to_text(const Outcome& o);
std::string to_text(const Pattern& p);
// Returns the pattern that matches exactly this outcome.
Pattern exact(const Outcome& o);
// Parses a pattern from space-separated tokens. Returns it, or sets err to
// a message and `err_at` to the offset of the offending token.
std::optional<Pattern> parse_pattern(std::string_view text, std::string& err, size_t& err_at);

}  // namespace mwc
