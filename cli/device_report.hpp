// The reports of `conform --device`, findings first: text on stdout, JSON
// (a versioned findings array), JUnit XML (one testcase per finding) and
// one self-contained HTML page.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/json_out.hpp"
#include "findings/baseline.hpp"
#include "findings/judge.hpp"

namespace mwc::cli {

struct Report {
  const std::vector<findings::DeviceColumn>& cols;
  const std::vector<findings::DeviceJudgment>& judged;  // one per column
  const std::vector<findings::CorpusTrace>& corpus;
  std::vector<findings::Finding> findings;              // of every device, merged
  std::optional<findings::BaselineDiff> baseline;
  Provenance made;                                      // report.json's tool, created, command
  std::vector<double> seconds;                          // per column: the device's whole run
};

// Prints the findings summary (counts by severity), every finding with its
// reproducer, what differs between the devices, the baseline comparison,
// then per device the yardstick, the knob fingerprint and the rule table.
void print_device_report(const Report& r, std::ostream& out);
// Returns the report's count line: findings by severity, then what was not
// run, by whose lack (findings::lack_of): the device's, libibverbs' or
// mwcheck's device session's.
std::string counts_line(const std::vector<findings::Finding>& fs);
// Returns, when the time for shrinking (`seconds`) ran out before every
// finding of `shrunk` was shown 1-minimal, a line that says how many were
// and what to give (the progress line counts findings whose shrinking
// ended, however it ended); else "".
std::string unfinished_line(const std::string& device, const std::vector<findings::Finding*>& shrunk,
                            double seconds);
// Each returns one report file's contents: report.json, junit.xml,
// report.html (its links relative to `dir`, the folder it goes into).
// report.json holds no time but its `created` (SOURCE_DATE_EPOCH's when
// set), report.html none, and junit.xml's times are 0 under
// SOURCE_DATE_EPOCH: two runs of an unchanged device then give the same
// bytes (the timings go to the text report).
std::string device_json(const Report& r);
std::string device_junit(const Report& r);
std::string device_html(const Report& r, const std::string& dir);

// Writes each finding's reproducer (.mwt), C program and pyverbs test into
// DIR/ID/ (unsupported features have none) and records the paths in the
// finding; removes (and says so) the folders an earlier run left there for
// findings this run does not have (remove_stale_exports). Returns false
// after printing the error.
bool export_findings(std::vector<findings::Finding>& fs, const std::string& dir, std::ostream& err);
// Removes from `dir` the export folders of findings not in `keep`, left by
// an earlier run into the same folder (a finding since fixed): folders
// named as a finding that hold export files and nothing else (anything
// more, and the folder is left alone). Says on `err` which it removed;
// returns their names, sorted.
std::vector<std::string> remove_stale_exports(const std::string& dir, const std::vector<std::string>& keep,
                                              std::ostream& err);

}  // namespace mwc::cli
