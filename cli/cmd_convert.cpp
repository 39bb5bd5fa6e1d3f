#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/load.hpp"

namespace mwc::cli {

int cmd_convert(const ConvertOptions& o, std::ostream& out, std::ostream& err) {
  const auto t = load_trace(o.in, err);
  if (!t) return kExitBadInput;
  return save_trace(*t, o.out, out, err, o.binary) ? kExitOk : kExitBadInput;
}

}  // namespace mwc::cli
