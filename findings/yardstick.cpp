#include "findings/yardstick.hpp"

#include <fmt/format.h>

#include "adapters/divergence.hpp"
#include "compare/run.hpp"

namespace mwc::findings {
namespace {

// How well the model under `p` explains a device on one trace: whether it
// matches to the end, and how far it matches.
struct Fit {
  bool match = false;
  size_t reach = 0;
};

Fit fit_of(const Observed& r, const std::vector<Outcome>& mod) {
  const auto d = first_divergence(*r.device, mod, 0);
  return d ? Fit{false, d->op} : Fit{true, mod.size()};
}

}  // namespace

bool is_deviation(Knob k, uint8_t a) {
  const auto& alts = knob_descs()[static_cast<int>(k)].alts;
  return a < alts.size() && alts[a].kind == AltKind::deviation;
}

std::vector<ProfileId> default_yardsticks() {
  std::vector<ProfileId> r;
  for (int p = 0; p < kProfileCount; ++p)
    if (profile_descs()[p].kind == ProfileKind::normative) r.push_back(static_cast<ProfileId>(p));
  return r;
}

std::string profile_spec(const Profile& p, ProfileId base) {
  const Profile b = profile(base);
  std::string s(profile_descs()[static_cast<int>(base)].name);
  for (int k = 0; k < kKnobCount; ++k)
    if (p.v[k] != b.v[k])
      s += fmt::format("+{}={}", knob_descs()[k].name, knob_descs()[k].alts[p.v[k]].name);
  return s;
}

Yardstick fit_yardstick(const std::vector<Observed>& runs, ProfileId base) {
  Yardstick y;
  y.base = base;
  y.profile = profile(base);
  const Profile normative = y.profile;
  y.knobs.resize(kKnobCount);
  // Twice over the knobs: a reading adopted for one knob can make the
  // traces of another telling.
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < kKnobCount; ++k) {
      const KnobDesc& kd = knob_descs()[k];
      KnobPrint kp;
      kp.matches.assign(kd.alts.size(), 0);
      std::vector<size_t> reach(kd.alts.size(), 0);
      for (const Observed& r : runs) {
        std::vector<std::vector<Outcome>> per_alt;
        std::vector<Fit> fits;
        for (size_t a = 0; a < kd.alts.size(); ++a) {
          Profile p = y.profile;
          p.v[k] = static_cast<uint8_t>(a);
          per_alt.push_back(run_model(*r.trace, p));
          fits.push_back(fit_of(r, per_alt.back()));
        }
        bool telling = false;
        for (const auto& o : per_alt) telling = telling || o != per_alt[0];
        if (!telling) continue;
        ++kp.telling;
        for (size_t a = 0; a < fits.size(); ++a) kp.matches[a] += fits[a].match, reach[a] += fits[a].reach;
      }
      const auto better = [&](size_t a, size_t b) {
        return kp.matches[a] != kp.matches[b] ? kp.matches[a] > kp.matches[b] : reach[a] > reach[b];
      };
      size_t best = y.profile.v[k];
      for (size_t a = 0; a < kd.alts.size(); ++a)
        if (better(a, best)) best = a;
      const size_t was = normative.v[k];
      // What the second pass finds stands, whatever the first adopted:
      // the readings adopted after it may have taken its evidence away.
      // With no reading to follow, the base's alternative does.
      if (kp.telling == 0) {
        kp.verdict = "not exercised";
        y.profile.v[k] = static_cast<uint8_t>(was);
      } else if (kp.matches[best] == 0 && reach[best] == reach[was]) {
        kp.verdict = "none";  // no alternative explains the device any better than the base's
        y.profile.v[k] = static_cast<uint8_t>(was);
      } else {
        // The best explanation, even when other knobs keep it from
        // matching to the end: it reaches furthest into the traces.
        kp.follows = static_cast<int>(best);
        kp.verdict = fmt::format("like {} ({}/{} telling traces{})", kd.alts[best].name, kp.matches[best],
                                 kp.telling, kp.matches[best] == 0 ? ", but furthest into them" : "");
        if (is_deviation(static_cast<Knob>(k), static_cast<uint8_t>(best))) {
          kp.verdict += ": a deviation";
          y.profile.v[k] = static_cast<uint8_t>(was);
        } else {
          y.profile.v[k] = static_cast<uint8_t>(best);
        }
      }
      y.knobs[k] = std::move(kp);
    }
  }
  for (int k = 0; k < kKnobCount; ++k) y.knobs[k].adopted = y.profile.v[k] != normative.v[k];
  y.profile.name = profile_spec(y.profile, base);
  return y;
}

}  // namespace mwc::findings
