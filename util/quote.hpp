// User input echoed in messages: quoted, its control bytes escaped and its
// length capped, so a trace's bytes never reach the terminal raw (an ESC,
// a BEL, an invisible CR) and a huge token never floods it.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace mwc {

// How many bytes of input a message shows before "...".
inline constexpr size_t kQuoteMax = 80;

// Returns s with bytes below 0x20, DEL and '\\' escaped (\r, \n, \t, \\,
// else \xHH), cut after `max` input bytes with "..." appended.
std::string escaped(std::string_view s, size_t max = kQuoteMax);
// Returns escaped(s) between single quotes: how every message shows input.
std::string quote(std::string_view s, size_t max = kQuoteMax);

}  // namespace mwc
