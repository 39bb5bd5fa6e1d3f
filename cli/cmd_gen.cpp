#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/out_file.hpp"
#include "replay/gen.hpp"
#include "util/stdio_path.hpp"

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
  const bool stdout_ = o.out == kStdioPath;
  if (stdout_ && o.shards > 1) {
    err << "mwcheck gen: error: --shards writes files: give -o FILE\n";
    return kExitBadInput;
  }
  // Every option is checked before an output is touched.
  if (const std::string why = replay::check_options(o.gen, o.shards); !why.empty()) {
    err << "mwcheck gen: error: " << why << "\n";
    return kExitBadInput;
  }
  const bool binary = o.binary || o.out.ends_with(".mwb");
  std::vector<std::unique_ptr<OutFile>> files;  // each renamed into place once all are written
  std::vector<std::unique_ptr<replay::TraceSink>> sinks;
  std::vector<replay::TraceSink*> shards;
  for (uint32_t s = 0; s < o.shards; ++s) {
    std::FILE* f = stdout;
    if (!stdout_) {
      files.push_back(std::make_unique<OutFile>(shard_path(o.out, s, o.shards)));
      if (!files.back()->ok()) {
        err << files.back()->error() << "\n";
        return kExitBadInput;
      }
      f = files.back()->file();
    }
    sinks.push_back(binary ? replay::binary_sink(f) : replay::text_sink(f));
    shards.push_back(sinks.back().get());
  }
  if (const std::string why = replay::generate(o.gen, shards); !why.empty()) {
    err << fmt::format("{}:1:1: error: {}: {}\n", o.out, why, std::strerror(errno));
    return kExitBadInput;
  }
  for (auto& f : files)
    if (!f->commit()) {
      err << f->error() << "\n";
      return kExitBadInput;
    }
  return kExitOk;
}

}  // namespace mwc::cli
