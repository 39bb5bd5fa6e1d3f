// What the JSON documents mwcheck writes share: the tool's version, the
// time a report carries and the command line that made it, and how one
// document is printed. The shapes are cli/schema/*.schema.json's.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compare/expectations.hpp"
#include "refmodel/outcome.hpp"

namespace mwc::cli {

// Returns mwcheck's version ("0.1.0"): the project's, as CMake declares it.
std::string_view tool_version();

// Returns the time a report carries, as "YYYY-MM-DDTHH:MM:SSZ" (UTC):
// SOURCE_DATE_EPOCH's when it is set (the reproducible-builds convention:
// same inputs, same bytes), else the clock's. Returns nothing, with `why`
// set, when SOURCE_DATE_EPOCH is set to anything but a number of seconds.
std::optional<std::string> report_time(std::string& why);

// Returns whether SOURCE_DATE_EPOCH is set: durations in reports are then
// written as 0, so that two runs write the same bytes.
bool reproducible();

// Returns a duration as a report writes it: 0 when reproducible().
double report_seconds(double seconds);

// Who made a report, when and how.
struct Provenance {
  std::vector<std::string> command;  // the arguments after "mwcheck"
  std::string created;               // report_time()
};

// Returns the fields report.json starts with: findings_schema, kind
// ("model" or "device"), tool, created and command.
nlohmann::ordered_json report_header(std::string_view kind, const Provenance& p);

// Returns a mismatch as the JSON documents write it (op counted from 1).
nlohmann::ordered_json mismatch_json(const Mismatch& m);

// Returns an outcome as the JSON documents write it: its text, and the
// rule the model applied with that rule's citation.
nlohmann::ordered_json outcome_json(const Outcome& o);

// Returns a number of seconds for JSON: null when infinite (a miss).
nlohmann::ordered_json seconds_json(double s);

// Prints one JSON document (two-space indents, a final newline) to `out`.
void print_json(std::ostream& out, const nlohmann::ordered_json& j);

}  // namespace mwc::cli
