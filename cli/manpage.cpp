#include "cli/manpage.hpp"

#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "refmodel/op.hpp"
#include "refmodel/profile.hpp"
#include "refmodel/vocab.def"

namespace mwc::cli {
namespace {

// Returns `s` safe in roff running text: backslashes as \e, a leading dot
// or quote escaped, dashes as minus signs (options are typed as shown).
std::string roff(const std::string& s) {
  std::string r;
  for (char ch : s) {
    if (ch == '\\') r += "\\e";
    else if (ch == '-') r += "\\-";
    else if (ch == ',') r += ",\\:";  // long lists (OP=W,...) may break after a comma
    else r += ch;
  }
  if (!r.empty() && (r[0] == '.' || r[0] == '\'')) r.insert(0, "\\&");
  return r;
}

// The placeholder a field's value is written as.
std::string placeholder(FieldKind k) {
  switch (k) {
    case FieldKind::Buf: return "BUF";
    case FieldKind::Pd: return "PD";
    case FieldKind::Mr: return "MR";
    case FieldKind::Mw: return "MW";
    case FieldKind::Qp: return "QP";
    case FieldKind::U64: return "N";
    case FieldKind::Access: return "ACCESS";
    case FieldKind::SendFlags: return "SEND_FLAGS";
    case FieldKind::ReregFlags: return "REREG_FLAGS";
    case FieldKind::QpType: return "QP_TYPE";
    case FieldKind::QpState: return "QP_STATE";
    case FieldKind::Addr: return "ADDR";
    case FieldKind::Rkey: return "RKEY";
    case FieldKind::Key: return "KEY";
  }
  return "VALUE";
}

std::vector<const CLI::App*> verbs(const CLI::App& app) {
  std::vector<const CLI::App*> v;
  for (const CLI::App* s : const_cast<CLI::App&>(app).get_subcommands([](CLI::App*) { return true; }))
    if (!s->get_group().empty()) v.push_back(s);
  return v;
}

std::string verbs_section(const CLI::App& app) {
  std::ostringstream o;
  for (const CLI::App* v : verbs(app)) {
    o << ".SS " << v->get_name() << "\n";
    o << ".B mwcheck " << v->get_name() << "\n";
    std::string positional;
    for (const CLI::Option* opt : v->get_options())
      if (opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty())
        positional += " " + opt->get_name(true);
    o << "[\\fIOPTIONS\\fR]" << (positional.empty() ? "" : "\\fI" + roff(positional) + "\\fR") << "\n";
    o << ".PP\n" << roff(v->get_description()) << ".\n";
    for (const CLI::Option* opt : v->get_options()) {
      if (opt->get_group().empty()) continue;  // hidden
      std::string names;
      for (const auto& l : opt->get_lnames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-\\-" + roff(l) + "\\fR");
      for (const auto& s : opt->get_snames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-" + roff(s) + "\\fR");
      if (names.empty()) names = "\\fI" + roff(opt->get_name(true)) + "\\fR";
      else if (opt->get_expected_min() > 0) names += " \\fI" + roff(opt->get_type_name()) + "\\fR";
      o << ".TP\n" << names << "\n" << roff(opt->get_description());
      if (!opt->get_default_str().empty() && opt->get_lnames().size() && opt->get_lnames()[0] != "help")
        o << " (default: " << roff(opt->get_default_str()) << ")";
      o << "\n";
    }
  }
  return o.str();
}

std::string profiles_section() {
  std::ostringstream o;
  for (const auto& p : profile_descs()) {
    const char* kind = p.kind == ProfileKind::normative ? "a specification"
                       : p.kind == ProfileKind::asked  ? "a specification, when asked"
                                                        : "a description of a driver";
    o << ".TP\n.B " << p.name << "\n" << roff(std::string(p.summary)) << " (" << kind << ").\n";
  }
  for (const auto& r : revision_descs())
    o << ".TP\n.B " << release_name(r.profile, r.release) << "\n"
      << roff(revision_change(r) + ": " + std::string(r.source)) << ".\n";
  return o.str();
}

std::string knobs_section() {
  std::ostringstream o;
  for (const auto& k : knob_descs()) {
    o << ".TP\n.B " << roff(std::string(k.name)) << "\n" << roff(std::string(k.question)) << "\n";
    for (const auto& a : k.alts) {
      o << ".br\n\\(bu \\fB" << roff(std::string(a.name)) << "\\fR"
        << (a.kind == AltKind::deviation ? " (a deviation)" : "") << ": " << roff(std::string(a.source)) << "\n";
    }
  }
  return o.str();
}

std::string ops_section() {
  std::ostringstream o;
  for (int i = 0; i < kOpCount; ++i) {
    const OpDesc& d = op_desc(static_cast<OpCode>(i));
    std::string syn = "\\fB" + roff(std::string(d.name)) + "\\fR";
    for (const auto& f : d.fields) {
      const std::string v = "\\fI" + placeholder(f.kind) + "\\fR";
      if (f.mode == FieldMode::Pos) syn += " " + v;
      else if (f.mode == FieldMode::Req) syn += " " + roff(std::string(f.name)) + "=" + v;
      else syn += " [" + roff(std::string(f.name)) + "=" + v + "]";
    }
    o << ".TP\n" << syn << "\n" << roff(std::string(d.summary)) << ".\n";
  }
  return o.str();
}

std::string vocabulary_section() {
  std::ostringstream o;
  const auto list = [&](const char* what, std::initializer_list<const char*> names) {
    o << ".TP\n" << what << "\n";
    std::string line;
    for (const char* n : names) line += (line.empty() ? "" : ", ") + roff(n);
    o << line << "\n";
  };
#define X(n, v) #n,
  list("\\fIACCESS\\fR (joined with |, or 0)", {MWC_ACCESS_FLAGS(X)});
  list("\\fISEND_FLAGS\\fR", {MWC_SEND_FLAGS(X)});
  list("\\fIREREG_FLAGS\\fR", {MWC_REREG_FLAGS(X)});
  list("\\fIQP_TYPE\\fR", {MWC_QP_TYPES(X)});
#undef X
#define X(n) #n,
  list("\\fIQP_STATE\\fR", {MWC_QP_STATES(X)});
#undef X
  return o.str();
}

void replace(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

}  // namespace

std::string man_page(const CLI::App& app, const std::string& templ, const std::string& version) {
  std::string page = templ;
  replace(page, "@VERSION@", version);
  replace(page, "@VERBS@\n", verbs_section(app));
  replace(page, "@PROFILES@\n", profiles_section());
  replace(page, "@KNOBS@\n", knobs_section());
  replace(page, "@OPS@\n", ops_section());
  replace(page, "@VOCABULARY@\n", vocabulary_section());
  return page;
}

int print_man_page(const CLI::App& app, const std::vector<std::string>& args, const std::string& version,
                   std::ostream& out, std::ostream& err) {
  if (args.size() != 2) return err << "mwcheck __man: give the template\n", kExitBadInput;
  std::ifstream in(args[1], std::ios::binary);
  if (!in) return err << "mwcheck __man: cannot read " << args[1] << "\n", kExitBadInput;
  std::ostringstream t;
  t << in.rdbuf();
  out << man_page(app, t.str(), version);
  return kExitOk;
}

}  // namespace mwc::cli
