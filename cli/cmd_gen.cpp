#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "replay/gen.hpp"

namespace mwc::cli {

int cmd_gen(const GenOptions& o, std::ostream&, std::ostream& err) {
  const bool stdout_ = o.out == "-";
  std::FILE* f = stdout_ ? stdout : std::fopen(o.out.c_str(), "wb");
  if (!f) {
    err << fmt::format("{}:1:1: error: cannot write: {}\n", o.out, std::strerror(errno));
    return kExitBadInput;
  }
  const bool binary = o.binary || o.out.ends_with(".mwb");
  auto sink = binary ? replay::binary_sink(f) : replay::text_sink(f);
  const std::string why = replay::generate(o.gen, *sink);
  if (!stdout_ && std::fclose(f) != 0 && why.empty()) {
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
