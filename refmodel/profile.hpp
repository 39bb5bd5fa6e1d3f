// Knobs, their alternatives, and profiles (a value for every knob), all
// generated from knobs.def.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refmodel/knobs.def"

namespace mwc {

enum class Knob : uint8_t {
#define K(name, q, a, b, c, d, e) name,
  MWC_KNOBS(K)
#undef K
};
inline constexpr int kKnobCount = 0
#define K(name, q, a, b, c, d, e) +1
    MWC_KNOBS(K)
#undef K
    ;
static_assert(kKnobCount <= 32, "Outcome::knobs is a 32-bit set");

// alt::<knob>::<alternative>, the values a knob takes.
namespace alt {
#define A(name, kind, src) name,
#define K(kname, q, a, b, c, d, e) \
  namespace kname {                \
  enum : uint8_t { MWC_ALTS_##kname(A) };   \
  }
MWC_KNOBS(K)
#undef K
#undef A
}  // namespace alt

enum class ProfileId : uint8_t {
#define P(name, kind, s) name,
  MWC_PROFILES(P)
#undef P
};
inline constexpr int kProfileCount = 0
#define P(name, kind, s) +1
    MWC_PROFILES(P)
#undef P
    ;

// Whether a knob alternative is a legitimate reading of the sources or
// contradicts a mandatory statement (knobs.def).
enum class AltKind : uint8_t { reading, deviation };
// Whether a profile is a specification (judged by by default, or when
// asked) or a description of a driver.
enum class ProfileKind : uint8_t { normative, asked, descriptive };

struct AltDesc {
  std::string_view name;
  AltKind kind;
  std::string_view source;
};
struct KnobDesc {
  std::string_view name;
  std::string_view question;
  std::span<const AltDesc> alts;
  std::array<uint8_t, 5> profile_value;  // in ProfileId order
};
struct ProfileDesc {
  std::string_view name;
  ProfileKind kind;
  std::string_view summary;
};

// A later release of the driver a descriptive profile describes, where it
// takes another reading of a knob (knobs.def, MWC_REVISIONS).
struct RevisionDesc {
  ProfileId profile;
  std::string_view release;  // "6.12"
  Knob knob;
  uint8_t alt;
  std::string_view source;
};

// Each returns a table generated from knobs.def.
std::span<const KnobDesc> knob_descs();
std::span<const ProfileDesc> profile_descs();
std::span<const RevisionDesc> revision_descs();
// How many revisions knobs.def has: no more releases than that.
#define MWC_COUNT_REVISION(prof, release, kname, altname, src) +1
inline constexpr int kRevisionCount = 0 MWC_REVISIONS(MWC_COUNT_REVISION);
#undef MWC_COUNT_REVISION
// Returns the knob or profile with that name, or nothing.
std::optional<Knob> knob_from_name(std::string_view n);
std::optional<ProfileId> profile_from_name(std::string_view n);
// Returns the profiles' names as messages list them: "ibta, verbs, ...".
std::string profile_names();

// A set of knob values. Profiles are the named columns of knobs.def; a
// profile may also be adjusted knob by knob (`rxe+remote_range=window`).
struct Profile {
  std::array<uint8_t, kKnobCount> v{};
  std::string name;
  uint8_t operator[](Knob k) const { return v[static_cast<int>(k)]; }
};

// Returns the named profile.
Profile profile(ProfileId id);
// Returns the driver of descriptive profile id as `release` has it (named
// "rxe@6.12"): every revision of the profile up to that release applied;
// nothing when no revision names that release.
std::optional<Profile> profile_at(ProfileId id, std::string_view release);
// Returns every release the revisions name, each as profile_at() gives it,
// in the profiles' order, oldest release first.
std::vector<Profile> release_profiles();
// Returns every profile (index = ProfileId), then release_profiles(): what
// a device is compared with to say which it resembles.
std::vector<Profile> described_profiles();
// Returns the name of profile id's driver as `release` has it: "rxe@6.12".
std::string release_name(ProfileId id, std::string_view release);
// Returns a revision's change as a profile adjustment says it: "bind_qp_pd=always".
std::string revision_change(const RevisionDesc& r);
// Returns every column's profile (index = column), then the verbs profile
// with each knob alternative in turn ("verbs+KNOB=ALT"): what differential
// tests and fuzz targets run a trace under.
std::vector<Profile> profile_variants();
// Parses "NAME", "NAME@RELEASE" (profile_at), each optionally followed by
// "+knob=alt+knob=alt". Returns the profile, or an error message in `err`
// (input quoted, names from knobs.def).
std::optional<Profile> parse_profile(std::string_view spec, std::string& err);

}  // namespace mwc
