#include "cli/load.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "cli/out_file.hpp"
#include "refmodel/binary_codec.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::cli {
namespace {
bool is_binary_path(const std::string& p) { return p.size() >= 4 && p.ends_with(".mwb"); }
}  // namespace

std::optional<Trace> load_trace(const std::string& path, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << fmt::format("{}:1:1: error: cannot open: {}\n", path, std::strerror(errno));
    return std::nullopt;
  }
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    err << fmt::format("{}:1:1: error: cannot read\n", path);
    return std::nullopt;
  }
  if (is_binary_path(path) || data.starts_with("MWTB")) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
    auto r = decode_mwb({bytes, data.size()});
    if (auto* e = std::get_if<DecodeError>(&r)) {
      err << fmt::format("{}:1:{}: error: {}\n", path, e->offset + 1, e->message);
      return std::nullopt;
    }
    Trace t = std::get<Trace>(std::move(r));
    t.origin = path;
    return t;
  }
  auto r = parse_text(data);
  if (auto* e = std::get_if<ParseError>(&r)) {
    err << fmt::format("{}:{}:{}: error: {}\n", path, e->line, e->col, e->message);
    return std::nullopt;
  }
  Trace t = std::get<Trace>(std::move(r));
  t.origin = path;
  return t;
}

bool save_trace(const Trace& t, const std::string& path, std::ostream& err) {
  OutFile out(path);  // the old file stays until the new one is whole
  if (out.ok()) {
    if (is_binary_path(path)) {
      const auto bytes = encode_mwb(t);
      std::fwrite(bytes.data(), 1, bytes.size(), out.file());
    } else {
      const std::string text = print_text(t);
      std::fwrite(text.data(), 1, text.size(), out.file());
    }
  }
  if (!out.commit()) {
    err << out.error() << "\n";
    return false;
  }
  return true;
}

int load_corpus(const std::string& dir, std::vector<std::string>& paths,
                std::vector<Trace>& traces, std::ostream& err) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".mwt" || it->path().extension() == ".mwb") files.push_back(it->path());
  if (ec || files.empty()) {
    err << fmt::format("{}:1:1: error: no conformance traces here{}\n", dir,
                       ec ? ": " + ec.message() : "");
    return 2;
  }
  std::sort(files.begin(), files.end());
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
