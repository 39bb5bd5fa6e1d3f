#include "refmodel/profile.hpp"

#include <algorithm>

#include "util/quote.hpp"

namespace mwc {
namespace {

#define A(name, kind, src) AltDesc{#name, AltKind::kind, src},
#define K(kname, q, a, b, c, d, e) constexpr AltDesc kAlts_##kname[] = {MWC_ALTS_##kname(A)};
MWC_KNOBS(K)
#undef K
#undef A

constexpr KnobDesc kKnobs[] = {
#define K(kname, q, a, b, c, d, e)                                                   \
  KnobDesc{#kname, q, kAlts_##kname,                                                 \
           {alt::kname::a, alt::kname::b, alt::kname::c, alt::kname::d, alt::kname::e}},
    MWC_KNOBS(K)
#undef K
};

constexpr ProfileDesc kProfiles[] = {
#define P(name, kind, s) ProfileDesc{#name, ProfileKind::kind, s},
    MWC_PROFILES(P)
#undef P
};
static_assert(std::size(kProfiles) == 5, "KnobDesc::profile_value has five columns");

constexpr RevisionDesc kRevisions[] = {
#define R(prof, release, kname, altname, src) \
  RevisionDesc{ProfileId::prof, release, Knob::kname, alt::kname::altname, src},
    MWC_REVISIONS(R)
#undef R
};
// A revision describes a driver's release: a specification has none.
static_assert([] {
  for (const RevisionDesc& r : kRevisions)
    if (kProfiles[static_cast<int>(r.profile)].kind != ProfileKind::descriptive) return false;
  return true;
}());

// Returns whether release a ("6.1") comes before b ("6.12"): dotted
// numbers compared part by part.
bool before(std::string_view a, std::string_view b) {
  while (!a.empty() || !b.empty()) {
    unsigned x = 0, y = 0;
    while (!a.empty() && a.front() != '.') x = x * 10 + static_cast<unsigned>(a.front() - '0'), a.remove_prefix(1);
    while (!b.empty() && b.front() != '.') y = y * 10 + static_cast<unsigned>(b.front() - '0'), b.remove_prefix(1);
    if (x != y) return x < y;
    if (!a.empty()) a.remove_prefix(1);
    if (!b.empty()) b.remove_prefix(1);
  }
  return false;
}

// Returns the releases the revisions of profile id name, oldest first.
std::vector<std::string_view> releases_of(ProfileId id) {
  std::vector<std::string_view> releases;
  for (const RevisionDesc& r : kRevisions)
    if (r.profile == id && std::find(releases.begin(), releases.end(), r.release) == releases.end())
      releases.push_back(r.release);
  std::sort(releases.begin(), releases.end(), before);
  return releases;
}

}  // namespace

std::span<const KnobDesc> knob_descs() { return kKnobs; }
std::span<const ProfileDesc> profile_descs() { return kProfiles; }
std::span<const RevisionDesc> revision_descs() { return kRevisions; }

std::vector<Profile> profile_variants() {
  std::vector<Profile> ps;
  for (int c = 0; c < kProfileCount; ++c) ps.push_back(profile(static_cast<ProfileId>(c)));
  for (size_t k = 0; k < std::size(kKnobs); ++k)
    for (size_t a = 0; a < kKnobs[k].alts.size(); ++a) {
      Profile p = profile(ProfileId::verbs);
      p.v[k] = static_cast<uint8_t>(a);
      p.name = "verbs+" + std::string(kKnobs[k].name) + "=" + std::string(kKnobs[k].alts[a].name);
      ps.push_back(p);
    }
  return ps;
}

std::optional<Knob> knob_from_name(std::string_view n) {
  for (int i = 0; i < kKnobCount; ++i)
    if (kKnobs[i].name == n) return static_cast<Knob>(i);
  return std::nullopt;
}

std::optional<ProfileId> profile_from_name(std::string_view n) {
  for (int i = 0; i < kProfileCount; ++i)
    if (kProfiles[i].name == n) return static_cast<ProfileId>(i);
  return std::nullopt;
}

Profile profile(ProfileId id) {
  Profile p;
  const int col = static_cast<int>(id);
  for (int k = 0; k < kKnobCount; ++k) p.v[k] = kKnobs[k].profile_value[col];
  p.name = std::string(kProfiles[col].name);
  return p;
}

std::optional<Profile> profile_at(ProfileId id, std::string_view release) {
  Profile p = profile(id);
  bool named = false;
  for (const RevisionDesc& r : kRevisions) {
    if (r.profile != id) continue;
    named = named || r.release == release;
    if (!before(release, r.release)) p.v[static_cast<int>(r.knob)] = r.alt;
  }
  if (!named) return std::nullopt;
  p.name = release_name(id, release);
  return p;
}

std::vector<Profile> release_profiles() {
  std::vector<Profile> ps;
  for (int c = 0; c < kProfileCount; ++c)
    for (const std::string_view r : releases_of(static_cast<ProfileId>(c)))
      ps.push_back(*profile_at(static_cast<ProfileId>(c), r));
  return ps;
}

std::vector<Profile> described_profiles() {
  std::vector<Profile> ps;
  for (int c = 0; c < kProfileCount; ++c) ps.push_back(profile(static_cast<ProfileId>(c)));
  for (Profile& p : release_profiles()) ps.push_back(std::move(p));
  return ps;
}

std::string release_name(ProfileId id, std::string_view release) {
  return std::string(kProfiles[static_cast<int>(id)].name) + "@" + std::string(release);
}

std::string revision_change(const RevisionDesc& r) {
  const KnobDesc& k = kKnobs[static_cast<int>(r.knob)];
  return std::string(k.name) + "=" + std::string(k.alts[r.alt].name);
}

std::string profile_names() {
  std::string all;
  for (const auto& p : kProfiles) all += (all.empty() ? "" : ", ") + std::string(p.name);
  return all;
}

namespace {
// Returns a knob's alternatives as messages list them: "a, b".
std::string alternative_names(const KnobDesc& k) {
  std::string all;
  for (const auto& a : k.alts) all += (all.empty() ? "" : ", ") + std::string(a.name);
  return all;
}
}  // namespace

std::optional<Profile> parse_profile(std::string_view spec, std::string& err) {
  const size_t plus = spec.find('+');
  const std::string_view base = spec.substr(0, plus);
  const size_t at = base.find('@');
  const auto id = profile_from_name(base.substr(0, at));
  if (!id) {
    err = "unknown profile " + quote(base.substr(0, at)) + " (profiles: " + profile_names() + ")";
    return std::nullopt;
  }
  Profile p = profile(*id);
  if (at != std::string_view::npos) {
    const auto r = profile_at(*id, base.substr(at + 1));
    if (!r) {
      std::string releases;
      for (const std::string_view q : releases_of(*id))
        releases += (releases.empty() ? "" : ", ") + release_name(*id, q);
      err = "profile " + quote(base.substr(0, at)) + " has no release " + quote(base.substr(at + 1)) +
            (releases.empty() ? std::string(" (it describes no other release)") : " (releases: " + releases + ")");
      return std::nullopt;
    }
    p = *r;
  }
  p.name = std::string(spec);
  if (plus == std::string_view::npos) return p;
  std::string_view rest = spec.substr(plus + 1);
  // Each '+' adds one knob=alternative; none after it ("rxe+") is a mistake.
  for (bool more = true; more;) {
    const size_t next = rest.find('+');
    const std::string_view item = rest.substr(0, next);
    more = next != std::string_view::npos;
    rest = more ? rest.substr(next + 1) : "";
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      err = "expected knob=alternative after '+' in " + quote(spec) + ", got " + quote(item);
      return std::nullopt;
    }
    const auto k = knob_from_name(item.substr(0, eq));
    if (!k) {
      std::string knobs;
      for (const auto& kd : kKnobs) knobs += (knobs.empty() ? "" : ", ") + std::string(kd.name);
      err = "unknown knob " + quote(item.substr(0, eq)) + " (knobs: " + knobs + ")";
      return std::nullopt;
    }
    const KnobDesc& kd = kKnobs[static_cast<int>(*k)];
    bool found = false;
    for (size_t a = 0; a < kd.alts.size(); ++a) {
      if (kd.alts[a].name == item.substr(eq + 1)) {
        p.v[static_cast<int>(*k)] = static_cast<uint8_t>(a);
        found = true;
      }
    }
    if (!found) {
      err = "knob " + quote(item.substr(0, eq)) + " has no alternative " + quote(item.substr(eq + 1)) +
            " (alternatives: " + alternative_names(kd) + ")";
      return std::nullopt;
    }
  }
  return p;
}

}  // namespace mwc
