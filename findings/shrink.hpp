// Shrinking a finding on the device itself: delta debugging whose oracle
// runs each candidate on the device (each in its own child process) and
// asks whether the same finding still shows, until the reproducer is
// 1-minimal (removing any single op, or setting any optional field back to
// its default, loses the finding) or the time is up. A candidate that
// leans on a reading the start did not (the model consults a knob for it
// that it did not consult for the start) is no candidate: where the
// sources disagree, a reproducer must not need the device's side to be
// valid (a type 2 window's bind work request turned into one on a type 1
// window, which one reading of ibv_bind_mw(3) forbids).
#pragma once
#include <chrono>
#include <functional>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

#include "adapters/backend.hpp"
#include "findings/device_run.hpp"
#include "refmodel/profile.hpp"

namespace mwc::findings {

// How a shrinking note begins when the time for shrinking ran out (before
// the reproducer was shown 1-minimal, or before the finding's turn).
inline constexpr std::string_view kOutOfTime = "the time for shrinking ran out";
// Returns whether a shrinking note says the time ran out.
inline bool out_of_time(std::string_view note) { return note.starts_with(kOutOfTime); }
// The note of a reproducer that showed the finding once and not on the
// run after.
inline constexpr std::string_view kShownOnce =
    "the reproducer showed the finding once and not on a second run: it may depend on timing";

// Returns whether trace `t`, run on a device with outcomes `device` (and
// the backend's `note`), shows the finding with key `key` against the
// yardstick `y`.
bool shows(const Trace& t, const std::vector<Outcome>& device, const std::string& note,
           const Profile& y, const std::string& key);

// Returns whether the model under `y` could let trace `t` show the finding
// `key` at all (the op, the rule and the yardstick's outcome it needs are
// there): a candidate without them is refused without a device run.
bool could_show(const Trace& t, const Profile& y, const std::string& key);

// Returns the indices (increasing) of op `op` and of the ops that make the
// objects it names, transitively (an object is made by the first op that
// names it in its first field): the smallest trace that could show a
// finding at that op.
std::vector<uint32_t> creation_slice(const Trace& t, size_t op);

// Returns the knobs the model under `y` consults running `t` (the union of
// its outcomes' Outcome::knobs): the readings a trace leans on.
uint32_t consulted_knobs(const Trace& t, const Profile& y);

// Returns a candidate's hash (of its text): the name by which a candidate
// that killed the guest is known when the guest comes back.
uint64_t candidate_hash(const Trace& t);
// Returns the hash of a reproducer's second run (the run that confirms it
// shows again), which is no candidate's.
uint64_t confirmation_hash(const Trace& t);

// Shrinks `start` (which shows finding `key` on `device`) until it is
// 1-minimal or `until` passes; 1-minimal only when the reproducer then
// shows the finding on one more run. `known` answers candidates from
// earlier boots (a candidate that killed the guest: true for a
// kernel-crash finding); `marks` (the guest's console) is told each
// candidate before it runs.
// Returns the reproducer and how shrinking went.
Shrunk shrink_finding(Backend& device, const Trace& start, const Profile& y, const std::string& key,
                      std::chrono::steady_clock::time_point until,
                      const std::map<uint64_t, bool>& known, std::ostream* marks,
                      std::map<uint64_t, bool>* learned = nullptr);

// Shrinks many findings within one time budget: trace `starts[i]` shows
// `keys[i]`. Kernel crashes go last (each candidate that shows one costs a
// boot) with an equal share kept for them; the others get an equal share
// first, then what time is left goes to those it did not make 1-minimal,
// going on from where they were with every answer remembered. `known`
// answers candidates from earlier boots. Each result (a finding may have
// two, the later one superseding) is given to `done` as soon as it exists.
void shrink_findings(Backend& device, const std::vector<Trace>& starts, const Profile& y,
                     const std::vector<std::string>& keys, std::chrono::steady_clock::time_point until,
                     const std::map<uint64_t, bool>& known, std::ostream* marks,
                     const std::function<void(size_t, const Shrunk&)>& done);

}  // namespace mwc::findings
