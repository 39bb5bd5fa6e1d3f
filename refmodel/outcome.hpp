// What an op did (Outcome), what a trace expects it to do (Pattern), and
// their text form: `OK`, `EPERM`, `IBV_WC_REM_ACCESS_ERR`,
// `IBV_WC_SUCCESS IBV_WC_BIND_MW`, `OK key=+1`, `EMPTY`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
