// The C export: the runtime (runtime.c, embedded at build time) and main(),
// one generated call per op, walking the op's field descriptors.
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
#include "exports/runtime_c.inc"
    ;

// The vocabulary's X-macro lists, as the C preprocessor definitions the
// runtime maps errno values and ibv_wc_* values with. NONE is no verbs name.
std::string vocabulary() {
  std::string s = "#define MWC_ERRNOS(X)";
#define X(n) s += " X(" #n ")";
  MWC_ERRNOS(X)
  s += "\n#define MWC_WC_STATUSES(X)";
  MWC_WC_STATUSES(X)
  s += "\n#define MWC_WC_OPCODES(X)";
  MWC_WC_OPCODES(X)
#undef X
  s += "\n";
  for (size_t at; (at = s.find(" X(NONE)")) != std::string::npos;) s.erase(at, 8);
  return s;
}

// mwcheck's device settings (device_settings.def) as the definitions the
// runtime reads its environment variables with: NAME_RANGE (lowest,
// highest) and NAME_DEFAULT.
std::string settings() {
  std::string s;
  for (const DeviceSetting& d : kDeviceSettings)
    s += "#define " + std::string(d.env) + "_RANGE " + std::to_string(d.lo) + ", " + std::to_string(d.hi) +
         "\n#define " + std::string(d.env) + "_DEFAULT " + std::to_string(d.def) + "\n";
  return s + "#define MWC_SETTLE_MS " + std::to_string(kSettleMs) + "\n";
}

// The runtime's prototype of each op function, from the op table: a
// function that is missing does not link, one that takes other fields does
// not compile.
std::string prototypes() {
  std::string s;
  for (int i = 0; i < kOpCount; ++i) {
    const OpDesc& d = op_desc(static_cast<OpCode>(i));
    s += "const char *mwc_" + std::string(d.name) + "(struct mwc_rt *rt";
    for (const FieldDesc& f : d.fields) s += ", " + c_type(f.kind) + " " + std::string(f.name);
    s += ");\n";
  }
  return s;
}

}  // namespace

std::string to_c(const Reproducer& r) {
  const size_t n = ops_to_run(r);
  std::string s = "/* " + comment_safe(header_title(r), "*/") + "\n";
  for (const std::string& line : header_lines(r, n)) s += " *" + (line.empty() ? "" : " " + comment_safe(line, "*/")) + "\n";
  s += " *\n * Build and run:  cc -o repro repro.c -libverbs && ./repro [DEVICE]\n";
  for (const std::string& line : settings_lines()) s += " * " + line + "\n";
  s += " * Exit status: 1 the finding reproduces, 0 every op as expected (fixed),\n"
       " * 3 an earlier op already differed (another path), 2 setup failed. */\n\n";
  s += vocabulary() + settings() + "\n" + std::string(kRuntime) + "\n" + prototypes() + "\n";
  s += "int main(int argc, char **argv) {\n";
  s += "  static const unsigned caps[5] = {";
  for (int k = 0; k < kHandleKinds; ++k) s += (k ? ", " : "") + std::to_string(r.trace.caps[k]);
  // Static: the watchdog thread reads it until the process ends, after main returns too.
  s += "};\n  static struct mwc_rt rt;\n";
  s += "  if (mwc_open(&rt, argc > 1 ? argv[1] : NULL, caps) != 0) return 2;\n";
  s += "  mwc_watch(&rt, " + c_string(r.id) + ", " + std::to_string(n ? n - 1 : 0) + ");\n";
  for (size_t i = 0; i < n; ++i) {
    const Op& op = r.trace.ops[i];
    const OpDesc& d = op_desc(op.code);
    std::string call = "mwc_" + std::string(d.name) + "(&rt";
    for (size_t f = 0; f < d.fields.size(); ++f) call += ", " + c_literal(d.fields[f], op.a[f]);
    call += ")";
    s += "  mwc_begin(&rt, " + std::to_string(i) + ", " + c_string(op_to_text(op)) + ");\n";
    s += "  mwc_check(&rt, " + std::to_string(i) + ", " + c_string(expected_text(r, i)) + ", " + call + ");\n";
  }
  s += "  return mwc_verdict(&rt, " + c_string(r.id) + ", " + std::to_string(n ? n - 1 : 0) + ");\n}\n";
  return s;
}

}  // namespace mwc::exports
