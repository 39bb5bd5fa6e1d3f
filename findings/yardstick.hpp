// The yardstick a device is judged by: a normative profile (ibta, verbs,
// det) with, knob by knob, the reading the device follows adopted where the
// sources legitimately disagree. A deviation (an alternative that
// contradicts a mandatory statement) is never adopted: a device that takes
// one diverges from its yardstick there, whatever profile describes it.
#pragma once
#include <string>
#include <vector>

#include "refmodel/outcome.hpp"
#include "refmodel/profile.hpp"
#include "refmodel/trace.hpp"

namespace mwc::findings {

// Which alternative of one knob the device follows.
struct KnobPrint {
  size_t telling = 0;           // traces on which the knob's alternatives differ
  std::vector<size_t> matches;  // per alternative: telling traces it matches
  int follows = -1;             // the alternative that explains the device best, or -1
  bool adopted = false;         // ... and the yardstick took it (a reading)
  std::string verdict;          // "like ALT (n/m telling traces)", "none", "not exercised"
};

struct Yardstick {
  ProfileId base{};               // the normative profile
  Profile profile;                // base with the device's readings
  std::vector<KnobPrint> knobs;   // indexed by Knob
};

// One trace of a corpus with the device's outcomes for it.
struct Observed {
  const Trace* trace;
  const std::vector<Outcome>* device;
};

// Returns `base` fitted to the device: for each knob, on the traces that
// tell its alternatives apart, the reading that matches the device on the
// most traces (ties: the one it matches furthest into them) replaces the
// base's alternative when it matches more than that does.
Yardstick fit_yardstick(const std::vector<Observed>& runs, ProfileId base);

// Returns the profile as `mwcheck --profile` reads it: "verbs" or
// "verbs+knob=alt+...", naming the knobs that differ from the base.
std::string profile_spec(const Profile& p, ProfileId base);

// Returns whether an alternative is a deviation (knobs.def).
bool is_deviation(Knob k, uint8_t alternative);

// Returns the profiles a device is judged by unless the user names others
// (the normative ones), in knobs.def order.
std::vector<ProfileId> default_yardsticks();

}  // namespace mwc::findings
