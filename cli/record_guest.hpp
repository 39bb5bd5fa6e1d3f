// mwcheck record --device softroce: the recording made inside the
// Soft-RoCE VM. The programs go into the guest with their libraries, the
// command runs there under the recorder, and the trace (and the log, when
// asked for) come back.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace mwc::cli {

// Records `o.command` in the VM `o.device` names, with the resolved
// --program paths `programs` and the recorder library `recorder`. Returns
// the exit status: that of the recording in the guest (1 when the program
// failed or hit --timeout, or the guest died while it ran), 2 for bad
// input or a VM that could not run.
int record_in_softroce(const RecordOptions& o, const std::vector<std::string>& programs,
                       const std::string& recorder, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
