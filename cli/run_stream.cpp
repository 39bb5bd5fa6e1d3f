#include "cli/run_stream.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>

#include "compare/annotate.hpp"
#include "compare/expectations.hpp"
#include "refmodel/text_codec.hpp"
#include "util/line_chunks.hpp"
#include "util/read_input.hpp"
#include "util/stdio_path.hpp"

namespace mwc::cli {
namespace {

// Calls `piece(trace)` for each piece of the file, its lines numbered as in
// the file. Returns false after printing the first error.
template <class F>
bool each_piece(const std::string& path, std::ostream& err, F&& piece) {
  LineChunks chunks;
  InputError e;
  const auto fail = [&] {
    err << fmt::format("{}:{}:{}: error: {}\n", path, e.line, e.col, e.message);
    return false;
  };
  if (!chunks.open(path, kTraceLimits.max_line, e)) return fail();
  std::string text;
  size_t first = 1;
  while (chunks.next(text, first, e)) {
    auto r = parse_text(text);
    if (auto* pe = std::get_if<ParseError>(&r)) {
      e = {pe->line + first - 1, pe->col, pe->message};
      return fail();
    }
    Trace& t = std::get<Trace>(r);
    for (auto& l : t.lines) l += static_cast<uint32_t>(first - 1);
    t.origin = path;
    piece(t);
  }
  return e.message.empty() || fail();
}

}  // namespace

bool can_stream(const std::string& path, const Backend& b) {
  struct stat st {};
  // Standard input is read once, whole: streaming takes two passes.
  if (!b.runs_pieces() || path == kStdioPath || path.ends_with(".mwb") || stat(path.c_str(), &st) != 0 ||
      !S_ISREG(st.st_mode))
    return false;
  char magic[4] = {};
  std::ifstream(path, std::ios::binary).read(magic, 4);
  return std::string_view(magic, 4) != kTraceLimits.binary_magic;
}

bool run_streamed(const std::string& path, Backend& b, bool check, bool quiet, size_t& mismatches,
                  std::ostream& out, std::ostream& err) {
  Caps caps{1, 1, 1, 1, 1};
  if (!each_piece(path, err, [&](const Trace& t) {
        for (size_t k = 0; k < caps.size(); ++k) caps[k] = std::max(caps[k], t.caps[k]);
      }))
    return false;
  b.begin_pieces(caps);
  std::vector<Outcome> outcomes;
  return each_piece(path, err, [&](const Trace& t) {
    b.run_piece(t, outcomes);
    if (!quiet) out << annotate(t, outcomes, b.expectation_column(), b.name());
    const auto bad = check_expectations(path, t, outcomes, b.expectation_column());
    mismatches += bad.size();
    if (check)
      for (const auto& m : bad) err << mismatch_line(m, b.name());
  });
}

}  // namespace mwc::cli
