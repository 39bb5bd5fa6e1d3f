// A corpus on a device: every trace run on it (each in its own child
// process), and the stream of JSON lines that carries the results out of
// the Soft-RoCE guest to the host.
#pragma once
#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "adapters/backend.hpp"
#include "refmodel/trace.hpp"

namespace mwc::findings {

struct CorpusTrace {
  std::string name;  // file name
  Trace trace;
};

// One trace on one device.
struct DeviceTrace {
  std::string trace;
  std::vector<Outcome> outcomes;
  std::string note;  // a crash or hang, as the device backend saw it
  // What the kernel reported (WARNINGs, oopses) that is this trace's
  // (adapters/kernel/kernel_watch.hpp): each report's account, in order.
  std::string kernel;
};

// What shrinking one finding on a device gave.
struct Shrunk {
  std::string finding;     // the finding's id
  std::string text;        // the reproducer (.mwt)
  size_t ops_before = 0, ops_after = 0;
  size_t runs = 0;         // device runs spent
  bool minimal = false;    // removing any op, or simplifying any field, loses the finding
  std::string note;        // why shrinking stopped short, when it did
};

// One device's whole run, as the device side reports it.
struct DeviceColumn {
  std::string spec;   // device:rxe0, device:softroce:6.12
  std::string label;  // what it is: "rxe0", "softroce 6.12.57+deb12-amd64"
  std::vector<DeviceTrace> traces;  // in corpus order
  std::vector<Shrunk> shrunk;       // one per finding shrunk on this device
  std::vector<uint32_t> send_depths;  // granted per send queue depth asked (index depth-1); empty: as asked
  std::string timing;               // boot/run/total, for the VM
  std::string incident;             // the VM died after the traces (while shrinking)
};

// How long a corpus run waits, after its last trace, for trace processes
// still inside a verb the harness stopped waiting for (rxe 6.1's
// ibv_destroy_qp returns after about 50 s, and WARNs then).
inline constexpr std::chrono::seconds kTeardownWait{75};

// Runs the corpus on a device of this machine, trace by trace, reading
// the kernel's log meanwhile where it can (root; adapters/kernel/kernel_watch.hpp),
// up to kTeardownWait past the last trace. When `stream` is set, each
// result is also printed as a JSON line (the Soft-RoCE guest speaks to the
// host that way); `progress` shows how far it is when set
// (util/progress.hpp). Returns the device's column.
DeviceColumn run_device_corpus(Backend& device, const std::vector<CorpusTrace>& corpus,
                               std::ostream* stream, std::ostream* progress);

// Returns `t` with each create_qp's send queue depth the one the device
// grants for it (`granted`, index depth-1), where that is more and within
// what the model follows; unchanged when `granted` is empty.
Trace with_granted_depths(const Trace& t, const std::vector<uint32_t>& granted);

// Returns the JSON line that carries a shrinking result out of the guest.
std::string stream_line(const Shrunk& s);

// Reads the JSON lines of run_device_corpus and shrink_findings back into
// `col` (the host's side of the Soft-RoCE VM); lines that are no JSON object
// (a line torn by a dying guest) are skipped. Returns false when no line
// could be read.
bool read_device_stream(const std::string& text, DeviceColumn& col);

}  // namespace mwc::findings
