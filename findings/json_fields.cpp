#include "findings/json_fields.hpp"

namespace mwc::findings {
namespace {

// Returns j[key], or null when j is no object or has no such key.
const nlohmann::json* field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  const auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

}  // namespace

std::string text_field(const nlohmann::json& j, const char* key, const std::string& def) {
  const nlohmann::json* f = field(j, key);
  return f && f->is_string() ? f->get<std::string>() : def;
}

uint64_t as_count(const nlohmann::json& j, uint64_t def, uint64_t max) {
  // Non-negative integers parse as unsigned; anything else is no count.
  if (!j.is_number_unsigned()) return def;
  const uint64_t v = j.get<uint64_t>();
  return v <= max ? v : def;
}

uint64_t count_field(const nlohmann::json& j, const char* key, uint64_t def, uint64_t max) {
  const nlohmann::json* f = field(j, key);
  return f ? as_count(*f, def, max) : def;
}

bool flag_field(const nlohmann::json& j, const char* key, bool def) {
  const nlohmann::json* f = field(j, key);
  return f && f->is_boolean() ? f->get<bool>() : def;
}

const nlohmann::json& array_field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json* f = field(j, key);
  return f && f->is_array() ? *f : empty;
}

}  // namespace mwc::findings
