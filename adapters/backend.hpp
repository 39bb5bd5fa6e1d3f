// One interface for everything that can run a trace: the reference model
// under a profile now; devices and mutant models behind the same interface.
// Backends see decoded ops and return normalized outcomes, never device
// pointers or raw keys.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/device_settings.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/trace.hpp"

namespace mwc {

class Backend {
 public:
  virtual ~Backend() = default;
  // Returns the backend's spec, as a user writes it ("profile:rxe").
  virtual const std::string& name() const = 0;
  // Returns the profile column whose expectations apply, or -1 for none.
  virtual int expectation_column() const = 0;
  // Runs a whole trace from a fresh state; fills one outcome per op.
  virtual void run(const Trace& t, std::vector<Outcome>& outcomes) = 0;
  // A trace run in pieces, in order, from one fresh state (a text trace too
  // large to hold: run --check streams it): begin_pieces with the whole
  // trace's caps (or with less, when the trace is read once: each piece
  // then grows the state to its own), then run_piece for each piece.
  // Returns whether the backend can (a device runs only whole traces).
  virtual bool runs_pieces() const { return false; }
  virtual void begin_pieces(const Caps&) {}
  virtual void run_piece(const Trace&, std::vector<Outcome>&) {}
  // Returns what the last run() saw besides outcomes (how a device crashed
  // or hung), or nothing.
  virtual std::string note() const { return {}; }
  // Returns the process id of the child the last run() ran in, which the
  // kernel's reports name (0: it ran in none).
  virtual int last_child() const { return 0; }
  // Returns the knob values the backend follows, or nullptr when it follows
  // none that is known (a device): a divergence between two backends is
  // explained only by a knob they set differently and consulted.
  virtual const Profile* profile() const { return nullptr; }
  // Returns, for each send queue depth a trace may ask for (index depth-1),
  // the depth the backend grants (a device's ibv_create_qp may give more),
  // or nothing when it grants what is asked.
  virtual std::vector<uint32_t> granted_send_depths() { return {}; }
};

// Settings of device backends.
struct DeviceConfig {
  // device_settings.def gives the ranges and defaults.
  int op_timeout_ms = setting::op_timeout_ms.def;  // a completion later than this is TIMEOUT
  // Faults injected for self-tests: "provider-crash:TRACE", "no-completion:TRACE",
  // "guest-panic:TRACE" (TRACE: a trace file's name without extension).
  std::vector<std::string> inject;
  bool kvm = false;  // Soft-RoCE: try KVM first (TCG when the guest does not boot with it)
  int port = setting::port.def;            // the device port the trace's QPs and their peers use
  int gid_index = setting::gid_index.def;  // the GID they address; -1: the first RoCE v2 IPv4 (or IB) GID
};

// Returns the backend a spec names, or nullptr with `err` set. Specs:
//   profile:NAME[+knob=alt...]   the reference model under a profile
//   NAME[+knob=alt...]           the same, for short
//   mutant:NAME                  the model with one real bug (mutants.def),
//                                on the profile that bug corrupts
//   device:NAME                  an ibverbs device (rxe0, mlx5_0, ...)
// (device:softroce[:VERSION] is no backend of this process: the commands
// run themselves inside the Soft-RoCE VM for it; see adapters/softroce.)
std::unique_ptr<Backend> make_backend(std::string_view spec, std::string& err,
                                      const DeviceConfig& device = {});
// Returns whether a spec names the Soft-RoCE VM.
bool is_softroce(std::string_view spec);

}  // namespace mwc
