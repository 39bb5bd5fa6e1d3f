#include "cli/complete.hpp"

#include <algorithm>

#include <CLI/CLI.hpp>

#include "adapters/faults.hpp"
#include "adapters/verbs/inventory.hpp"
#include "cli/app.hpp"
#include "refmodel/mutant.hpp"
#include "refmodel/profile.hpp"

namespace mwc::cli {
namespace {

// Adds `w` when it starts with `cur`.
void offer(Completion& c, const std::string& cur, const std::string& w) {
  if (w.starts_with(cur)) c.words.push_back(w);
}

// Profiles, and a profile adjusted knob by knob: "rxe+remote_range=window".
void offer_profiles(Completion& c, const std::string& cur, const std::string& prefix = "") {
  const std::string spec = cur.substr(std::min(prefix.size(), cur.size()));
  const size_t plus = spec.rfind('+');
  if (plus == std::string::npos) {
    for (const auto& p : profile_descs()) offer(c, cur, prefix + std::string(p.name));
    for (const auto& p : release_profiles()) offer(c, cur, prefix + p.name);
    return;
  }
  const std::string head = prefix + spec.substr(0, plus + 1);  // "...rxe+"
  const std::string part = spec.substr(plus + 1);
  const size_t eq = part.find('=');
  for (const auto& k : knob_descs()) {
    const std::string knob(k.name);
    if (eq == std::string::npos) {
      offer(c, cur, head + knob + "=");
    } else if (part.substr(0, eq) == knob) {
      for (const auto& a : k.alts) offer(c, cur, head + knob + "=" + std::string(a.name));
    }
  }
}

// The ibverbs devices of this machine (what `mwcheck devices` lists).
std::vector<std::string> local_devices() {
  std::string why;
  std::vector<std::string> names;
  for (const auto& d : verbs::list_devices(why)) names.push_back(d.name);
  return names;
}

void offer_devices(Completion& c, const std::string& cur, const std::string& prefix = "") {
  offer(c, cur, prefix + "softroce");
  offer(c, cur, prefix + "softroce:");
  for (const auto& d : local_devices()) offer(c, cur, prefix + d);
}

// A backend of diff and fuzz: profile:NAME[+knob=alt], mutant:NAME, device:NAME.
void offer_backends(Completion& c, const std::string& cur) {
  if (cur.starts_with("profile:")) return offer_profiles(c, cur, "profile:");
  if (cur.starts_with("mutant:")) {
    for (const auto& m : mutant_descs()) offer(c, cur, "mutant:" + std::string(m.name));
    return;
  }
  if (cur.starts_with("device:")) return offer_devices(c, cur, "device:");
  for (const char* kind : {"profile:", "mutant:", "device:"}) offer(c, cur, kind);
}

// The values of option `opt` of verb `verb`.
void offer_values(Completion& c, const std::string& verb, const CLI::Option& opt, const std::string& cur) {
  const std::string name = opt.get_lnames().empty() ? "" : opt.get_lnames()[0];
  if (name == "profile") return offer_profiles(c, cur);
  if (name == "against") {
    if (verb == "conform") {  // the normative profiles a device is judged by
      for (const auto& p : profile_descs())
        if (p.kind != ProfileKind::descriptive) offer(c, cur, std::string(p.name));
      return;
    }
    return offer_backends(c, cur);
  }
  if (name == "device") {
    if (verb == "conform" || verb == "run") return offer_devices(c, cur);
    offer(c, cur, "softroce");
    offer(c, cur, "softroce:");
    return;
  }
  if (name == "mutant") {
    for (const auto& m : mutant_descs()) offer(c, cur, std::string(m.name));
    return;
  }
  if (name == "inject") {
    for (const auto& f : fault_descs()) offer(c, cur, std::string(f.name) + ":");
    return;
  }
  if (name == "expect") {
    offer(c, cur, "all");
    offer(c, cur, "none");
    return offer_profiles(c, cur);
  }
  // Text values are paths (corpus, report, output, log...); numbers are not.
  c.files = opt.get_type_name() == "TEXT";
}

// Returns the option `word` names in `app`, or null.
const CLI::Option* option_named(const CLI::App& app, const std::string& word) {
  if (word.size() < 2 || word[0] != '-' || word == "--") return nullptr;
  return app.get_option_no_throw(word.substr(0, word.find('=')));
}

}  // namespace

Completion complete(const CLI::App& app, const std::vector<std::string>& words, size_t cword) {
  Completion c;
  const std::string cur = cword < words.size() ? words[cword] : "";
  // The verb: the first word that is no option and no option's value.
  const CLI::App* verb = nullptr;
  bool after_dashes = false;
  const CLI::App* in = &app;
  for (size_t i = 1; i < cword && i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {
      after_dashes = true;
      continue;
    }
    if (const CLI::Option* o = option_named(*in, w); o && o->get_expected_min() > 0 && w.find('=') == std::string::npos) {
      ++i;  // its value
      continue;
    }
    if (!verb && !w.starts_with("-")) {
      for (const CLI::App* s : const_cast<CLI::App&>(app).get_subcommands([](CLI::App*) { return true; }))
        if (s->get_name() == w) verb = in = s;
    }
  }
  if (after_dashes) {  // record's program and its arguments
    c.files = true;
    return c;
  }
  if (cword >= 1 && cword - 1 < words.size()) {
    if (const CLI::Option* o = option_named(*in, words[cword - 1]);
        o && o->get_expected_min() > 0 && words[cword - 1].find('=') == std::string::npos) {
      offer_values(c, verb ? verb->get_name() : "", *o, cur);
      return c;
    }
  }
  if (!verb) {
    if (cur.starts_with("-")) {
      for (const char* o : {"--help", "--version"}) offer(c, cur, o);
      return c;
    }
    for (const CLI::App* s : const_cast<CLI::App&>(app).get_subcommands([](CLI::App*) { return true; }))
      if (!s->get_group().empty()) offer(c, cur, s->get_name());
    return c;
  }
  if (cur.starts_with("-")) {
    for (const CLI::Option* o : verb->get_options()) {
      if (o->get_group().empty()) continue;  // hidden
      for (const auto& l : o->get_lnames()) offer(c, cur, "--" + l);
      for (const auto& s : o->get_snames()) offer(c, cur, "-" + s);
    }
    return c;
  }
  c.files = true;  // trace files, folders
  return c;
}

int print_completion(const CLI::App& app, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  size_t cword = 0;
  if (args.size() < 2 || args[1].empty() || args[1].size() > 4 ||
      !std::all_of(args[1].begin(), args[1].end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return err << "mwcheck __complete: give CWORD WORDS...\n", kExitBadInput;
  cword = std::stoul(args[1]);
  const std::vector<std::string> words(args.begin() + 2, args.end());
  const Completion c = complete(app, words, cword);
  for (const auto& w : c.words) out << w << "\n";
  if (c.files) out << ":files\n";
  return kExitOk;
}

}  // namespace mwc::cli
