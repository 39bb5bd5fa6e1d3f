// The pyverbs export: a unittest in rdma-core's tests/ style, the runtime
// (runtime.py, embedded at build time) and one generated call per op,
// walking the op's field descriptors.
#include <string_view>

#include "adapters/device_settings.hpp"
#include "exports/export.hpp"
#include "exports/literal.hpp"
#include "exports/source_text.hpp"
#include "refmodel/text_codec.hpp"
#include "refmodel/vocab.hpp"

namespace mwc::exports {
namespace {

constexpr std::string_view kRuntime =
#include "exports/runtime_py.inc"
    ;

// The vocabulary's lists as the tables the runtime names values with
// (pyverbs.enums has the same names). NONE is no verbs name.
std::string vocabulary() {
  std::string s = "ERRNOS = {";
#define X(n) s += "errno." #n ": '" #n "', ";
  MWC_ERRNOS(X)
#undef X
  s += "}\nWC_STATUSES = {";
#define X(n) \
  if (std::string_view(#n) != "NONE") s += "e." #n ": '" #n "', ";
  MWC_WC_STATUSES(X)
  s += "}\nWC_OPCODES = {";
  MWC_WC_OPCODES(X)
#undef X
  s += "}\n";
  // mwcheck's device settings (device_settings.def): (lowest, highest, default).
  s += "SETTINGS = {";
  for (const DeviceSetting& d : kDeviceSettings)
    s += "'" + std::string(d.env) + "': (" + std::to_string(d.lo) + ", " + std::to_string(d.hi) + ", " +
         std::to_string(d.def) + "), ";
  s += "}\nSETTLE_MS = " + std::to_string(kSettleMs) + "\n";
  return s;
}

// A Python identifier from a finding id ("F-3a9c01d2" -> "F_3a9c01d2").
std::string identifier(std::string_view id) {
  std::string s;
  for (const char c : id) s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return s.empty() ? "repro" : s;
}

}  // namespace

std::string to_pyverbs(const Reproducer& r) {
  const size_t n = ops_to_run(r);
  std::string s = "#!/usr/bin/env python3\n# " + comment_safe(header_title(r), "") + "\n";
  for (const std::string& line : header_lines(r, n)) s += "#" + (line.empty() ? "" : " " + comment_safe(line, "")) + "\n";
  s += "#\n# Run: python3 test_repro.py [-v]   (MWC_DEVICE=NAME picks the device)\n";
  for (const std::string& line : settings_lines()) s += "# " + line + "\n";
  s += "# The test fails when the device differs from the specification: its\n"
       "# message says REPRODUCED when the finding shows at its op, OTHER PATH\n"
       "# when an earlier op already differed.\n";
  s += std::string(kRuntime) + "\n" + vocabulary() + "\n\n";
  s += "class MwcheckReproducer(unittest.TestCase):\n";
  s += "    \"\"\"" + comment_safe(header_title(r), "\"\"\"") + "\"\"\"\n\n";
  s += "    def setUp(self):\n";
  s += "        import os\n";
  s += "        self.rt = Runtime(os.environ.get('MWC_DEVICE'), [";
  for (int k = 0; k < kHandleKinds; ++k) s += (k ? ", " : "") + std::to_string(r.trace.caps[k]);
  s += "])\n\n";
  s += "    def tearDown(self):\n        self.rt.close()\n\n";
  s += "    def test_" + identifier(r.id) + "(self):\n";
  s += "        rt = self.rt\n";
  for (size_t i = 0; i < n; ++i) {
    const Op& op = r.trace.ops[i];
    const OpDesc& d = op_desc(op.code);
    std::string call = "rt." + std::string(d.name) + "(";
    for (size_t f = 0; f < d.fields.size(); ++f) call += (f ? ", " : "") + py_literal(d.fields[f], op.a[f]);
    call += ")";
    s += "        rt.begin(" + std::to_string(i) + ", " + py_string(op_to_text(op)) + ")\n";
    s += "        rt.check(" + std::to_string(i) + ", " + py_string(expected_text(r, i)) + ", " + call + ")\n";
  }
  s += "        rt.verdict(self, " + py_string(r.id) + ", " + std::to_string(n ? n - 1 : 0) + ")\n\n\n";
  s += "if __name__ == '__main__':\n    unittest.main()\n";
  return s;
}

}  // namespace mwc::exports
