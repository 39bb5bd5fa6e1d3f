// The reports of `conform --device`: text on stdout, JSON, JUnit XML (one
// testcase per trace and device) and one self-contained HTML page.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "cli/device_conform.hpp"

namespace mwc::cli {

using Columns = std::vector<DeviceColumn>;
using Analyses = std::vector<DeviceAnalysis>;

// Prints the rule table, the knob fingerprints, every divergence with its
// reproducer, and where the devices differ from each other.
void print_device_report(const Columns& cols, const Analyses& an,
                         const std::vector<CorpusTrace>& corpus, std::ostream& out);
// Each writes one report; returns false if the file cannot be written.
bool write_device_json(const Columns& cols, const Analyses& an,
                       const std::vector<CorpusTrace>& corpus, const std::string& path);
bool write_device_junit(const Columns& cols, const Analyses& an,
                        const std::vector<CorpusTrace>& corpus, const std::string& path);
bool write_device_html(const Columns& cols, const Analyses& an,
                       const std::vector<CorpusTrace>& corpus, const std::string& path);

}  // namespace mwc::cli
