#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "replay/gen.hpp"

namespace mwc::cli {

namespace {

// Returns the file of shard s of n: out itself, or out with ".s" before its
// extension.
std::string shard_path(const std::string& out, uint32_t s, uint32_t n) {
  if (n == 1) return out;
  const size_t slash = out.find_last_of('/');
  size_t dot = out.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = out.size();
  return out.substr(0, dot) + "." + std::to_string(s) + out.substr(dot);
}

}  // namespace

int cmd_gen(const GenOptions& o, std::ostream&, std::ostream& err) {
  const bool stdout_ = o.out == "-";
  if (stdout_ && o.shards > 1) {
    err << "mwcheck gen: error: --shards writes files: give -o FILE\n";
    return kExitBadInput;
  }
  const bool binary = o.binary || o.out.ends_with(".mwb");
  std::vector<std::FILE*> files;
  std::vector<std::unique_ptr<replay::TraceSink>> sinks;
  std::vector<replay::TraceSink*> shards;
  const auto close_all = [&] {
    bool ok = true;
    if (!stdout_)
      for (std::FILE* f : files) ok = std::fclose(f) == 0 && ok;
    return ok;
  };
  for (uint32_t s = 0; s < o.shards; ++s) {
    const std::string path = shard_path(o.out, s, o.shards);
    std::FILE* f = stdout_ ? stdout : std::fopen(path.c_str(), "wb");
    if (!f) {
      err << fmt::format("{}:1:1: error: cannot write: {}\n", path, std::strerror(errno));
      close_all();
      return kExitBadInput;
    }
    files.push_back(f);
    sinks.push_back(binary ? replay::binary_sink(f) : replay::text_sink(f));
    shards.push_back(sinks.back().get());
  }
  const std::string why = replay::generate(o.gen, shards);
  if (!close_all() && why.empty()) {
    err << fmt::format("{}:1:1: error: cannot write: {}\n", o.out, std::strerror(errno));
    return kExitBadInput;
  }
  if (!why.empty()) {
    err << "mwcheck gen: error: " << why << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace mwc::cli
