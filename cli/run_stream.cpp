#include "cli/run_stream.hpp"

#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "compare/annotate.hpp"
#include "compare/expectations.hpp"
#include "cli/load.hpp"
#include "refmodel/text_codec.hpp"
#include "util/fd_read.hpp"
#include "util/line_chunks.hpp"
#include "util/read_input.hpp"
#include "util/stdio_path.hpp"

namespace mwc::cli {
namespace {

// Calls `piece(trace)` for each piece `chunks` reads (of the file `path`),
// its lines numbered as in the file. Returns false after printing the
// first error.
template <class F>
bool each_piece(LineChunks& chunks, const std::string& path, std::ostream& err, F&& piece) {
  InputError e;
  const auto fail = [&] {
    err << fmt::format("{}:{}:{}: error: {}\n", path, e.line, e.col, e.message);
    return false;
  };
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

// The same for the file at `path`, opened here.
template <class F>
bool each_piece(const std::string& path, std::ostream& err, F&& piece) {
  LineChunks chunks;
  if (InputError e; !chunks.open(path, kTraceLimits.max_line, e)) {
    err << fmt::format("{}:{}:{}: error: {}\n", path, e.line, e.col, e.message);
    return false;
  }
  return each_piece(chunks, path, err, piece);
}

// Runs piece `t` on `b`, printing it unless `quiet` and its mismatches
// when `check`.
void run_one_piece(const std::string& path, const Trace& t, Backend& b, bool check, bool quiet, size_t& mismatches,
                   std::vector<Outcome>& outcomes, std::ostream& out, std::ostream& err) {
  b.run_piece(t, outcomes);
  if (!quiet) out << annotate(t, outcomes, b.expectation_column(), b.name());
  const auto bad = check_expectations(path, t, outcomes, b.expectation_column());
  mismatches += bad.size();
  if (check)
    for (const auto& m : bad) err << mismatch_line(m, b.name());
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
    run_one_piece(path, t, b, check, quiet, mismatches, outcomes, out, err);
  });
}

bool reads_once(const std::string& path) {
  struct stat st {};
  return path == kStdioPath || (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
}

bool run_read_once(const std::string& path, Backend& b, bool check, bool quiet, size_t& mismatches,
                   std::optional<Trace>& binary, std::ostream& out, std::ostream& err) {
  InputError e;
  const auto fail = [&] {
    err << fmt::format("{}:{}:{}: error: {}\n", path, e.line, e.col, e.message);
    return false;
  };
  struct stat st {};
  const int fd = open_input(path, st, e);
  if (fd < 0) return fail();
  // The magic's bytes tell a binary trace, which is loaded whole.
  std::string head(kTraceLimits.binary_magic.size(), '\0');
  const ssize_t n = read_full(fd, head.data(), head.size());
  if (n < 0) {
    e.message = std::string("cannot read: ") + std::strerror(errno);
    ::close(fd);
    return fail();
  }
  head.resize(static_cast<size_t>(n));
  if (head == kTraceLimits.binary_magic || path.ends_with(".mwb")) {
    if (!read_rest(fd, st, kTraceLimits, head, e)) return fail();
    binary = trace_of_bytes(head, path, path, err);
    return binary.has_value();
  }
  LineChunks chunks;
  chunks.adopt(fd, kTraceLimits.max_line, std::move(head));
  b.begin_pieces(Trace{}.caps);  // an empty trace's: each piece grows them
  std::vector<Outcome> outcomes;
  return each_piece(chunks, path, err, [&](const Trace& t) {
    run_one_piece(path, t, b, check, quiet, mismatches, outcomes, out, err);
  });
}

}  // namespace mwc::cli
