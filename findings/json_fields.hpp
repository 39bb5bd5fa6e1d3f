// Fields of JSON that mwcheck reads back but does not trust: a stored
// report (--baseline, export --from) a user may have edited, and the lines
// a device's guest wrote to its console. nlohmann's value() and get() throw
// on a field of another type, and convert an out-of-range number with
// undefined behaviour; these give the default instead, so a stray type is
// an absent field, never a crash.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace mwc::findings {

// Returns j[key] when j is an object whose key holds a string, else def.
std::string text_field(const nlohmann::json& j, const char* key, const std::string& def = "");
// Returns j as a count (an integer from 0 to max), else def: a negative,
// fractional or too large number, or no number.
uint64_t as_count(const nlohmann::json& j, uint64_t def = 0, uint64_t max = UINT64_MAX);
// Returns j[key] as a count (as_count), else def.
uint64_t count_field(const nlohmann::json& j, const char* key, uint64_t def = 0,
                     uint64_t max = UINT64_MAX);
// Returns j[key] when it is a boolean, else def.
bool flag_field(const nlohmann::json& j, const char* key, bool def = false);
// Returns j[key] when it is an array, else an empty array.
const nlohmann::json& array_field(const nlohmann::json& j, const char* key);

}  // namespace mwc::findings
