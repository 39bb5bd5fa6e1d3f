#include "cli/load.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "refmodel/binary_codec.hpp"
#include "refmodel/text_codec.hpp"
#include "util/atomic_file.hpp"
#include "util/read_input.hpp"
#include "util/stdio_path.hpp"

namespace mwc::cli {
namespace {
bool is_binary_path(const std::string& p) { return p.size() >= 4 && p.ends_with(".mwb"); }
}  // namespace

std::optional<Trace> load_trace(const std::string& path, std::ostream& err) { return load_trace(path, path, err); }

std::optional<Trace> load_trace(const std::string& path, const std::string& shown, std::ostream& err) {
  std::string data;
  if (InputError e; !read_input(path, kTraceLimits, data, e)) {
    err << fmt::format("{}:{}:{}: error: {}\n", shown, e.line, e.col, e.message);
    return std::nullopt;
  }
  return trace_of_bytes(data, path, shown, err);
}

std::optional<Trace> trace_of_bytes(const std::string& data, const std::string& path, const std::string& shown,
                                    std::ostream& err) {
  if (is_binary_path(path) || data.starts_with("MWTB")) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
    auto r = decode_mwb({bytes, data.size()});
    if (auto* e = std::get_if<DecodeError>(&r)) {
      err << fmt::format("{}:1:{}: error: {}\n", shown, e->offset + 1, e->message);
      return std::nullopt;
    }
    Trace t = std::get<Trace>(std::move(r));
    t.origin = path;
    return t;
  }
  auto r = parse_text(data);
  if (auto* e = std::get_if<ParseError>(&r)) {
    err << fmt::format("{}:{}:{}: error: {}\n", shown, e->line, e->col, e->message);
    return std::nullopt;
  }
  Trace t = std::get<Trace>(std::move(r));
  t.origin = path;
  return t;
}

bool stdin_at_most_once(const std::vector<std::string>& files, std::ostream& err) {
  if (std::count(files.begin(), files.end(), kStdioPath) < 2) return true;
  err << fmt::format("{}:1:1: error: standard input is named twice, and can be read only once\n", kStdioPath);
  return false;
}

std::string trace_bytes(const Trace& t, const std::string& path, bool binary) {
  if (!binary && !is_binary_path(path)) return print_text(t);
  const auto bytes = encode_mwb(t);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

bool save_trace(const Trace& t, const std::string& path, std::ostream& out, std::ostream& err, bool binary) {
  // Standard output: main() says when writing it failed.
  if (path == kStdioPath) return out << trace_bytes(t, path, binary), true;
  std::string why;
  if (write_file(path, trace_bytes(t, path, binary), why)) return true;
  err << fmt::format("{}:1:1: error: cannot write {}\n", path, why);
  return false;
}

std::vector<std::filesystem::path> corpus_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".mwt" || it->path().extension() == ".mwb") files.push_back(it->path());
  std::sort(files.begin(), files.end());
  return files;
}

int load_corpus(const std::string& dir, std::vector<std::string>& paths,
                std::vector<Trace>& traces, std::ostream& err) {
  std::error_code ec;
  std::filesystem::directory_iterator probe(dir, ec);  // why a folder has no traces
  const auto files = corpus_files(dir);
  if (files.empty()) {
    err << fmt::format("{}:1:1: error: no conformance traces here{}\n", dir,
                       ec ? ": " + ec.message() : "");
    return 2;
  }
  int status = 0;
  for (const auto& f : files) {
    auto t = load_trace(f.string(), err);
    if (!t) {
      status = 2;
      continue;
    }
    paths.push_back(f.string());
    traces.push_back(std::move(*t));
  }
  return status;
}

}  // namespace mwc::cli
