// The text form of a trace (.mwt): one op per line,
//
//   # a comment
//   reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|MW_BIND
//   bind_mw q0 w0 mr=m0 addr=m0+64 len=128 access=REMOTE_READ => OK key=+1; det: EPERM
//   peer_read q1 rkey=w0.prev addr=w0 len=8 => IBV_WC_SUCCESS   # old key
//
// Handles are symbolic (b buffers, p PDs, m MRs, w windows, q QPs); the
// positional arguments are an op's leading handles; `=>` starts the expected
// outcome, with per-profile clauses after `;`. Nothing a user writes can
// crash the parser: every error names a line and column.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "refmodel/trace.hpp"

namespace mwc {

struct ParseError {
  uint32_t line = 0, col = 0;  // 1-based
  std::string message;
};

// Returns the trace a text holds, or the first error in it.
std::variant<Trace, ParseError> parse_text(std::string_view text);

// Widens `caps` to cover every handle op names (as the parser sizes a trace).
void note_caps(Caps& caps, const Op& op);
// Returns why a trace built in memory (a recording, say) could not be read
// back: the first op with a handle beyond its kind's limit or a number
// outside its field's range, in words; or "" when it reads back.
std::string beyond_limits(const Trace& t);
// Returns the canonical text of one op (no expectation, no comment).
std::string op_to_text(const Op& op);
// Returns outcome text `outcome` of an op of code c as a reader reads it
// beside `other`, the outcome it is set against: a bind's bare "OK" where
// the other gave a key ("OK key=+1") is a bind that did not take effect,
// and says so ("OK (the window keeps its key)"); else `outcome`. For
// reports and comments: no parser reads it back.
std::string outcome_words(OpCode c, std::string_view outcome, std::string_view other);
// Returns the canonical text of a trace: parse_text(print_text(t)) == t.
std::string print_text(const Trace& t);

// What a printer puts beside each op, in place of the trace's own
// expectations: `outcome(i)` after " => " (nothing when empty) and
// `after(i)`, whole lines under the op. Either may be empty.
struct OpAnnotations {
  std::function<std::string(uint32_t)> outcome, after;
};
// Returns the trace's text, comments in place, annotated as `a` says.
std::string print_text(const Trace& t, const OpAnnotations& a);
// Returns the text of one expectation list: "OK; det: EPERM".
std::string expectations_text(std::span<const Expectation> es);

}  // namespace mwc
