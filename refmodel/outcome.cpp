#include "refmodel/outcome.hpp"

#include "util/quote.hpp"

#include <charconv>

namespace mwc {

bool matches(const Pattern& p, const Outcome& o) {
  return (!p.ret || *p.ret == o.ret) && (!p.wc || *p.wc == o.wc) &&
         (!p.wc_op || *p.wc_op == o.wc_op) && (!p.key || *p.key == o.key);
}

Pattern exact(const Outcome& o) {
  Pattern p;
  p.ret = o.ret;
  if (o.wc != WcStatus::kNONE) p.wc = o.wc;
  if (o.wc_op != WcOpcode::kNONE) p.wc_op = o.wc_op;
  if (o.key != kNoKey) p.key = o.key;
  return p;
}

std::string to_text(const Pattern& p) {
  std::string s;
  auto add = [&s](std::string_view t) {
    if (!s.empty()) s += ' ';
    s += t;
  };
  // A completion status implies the post itself returned OK.
  if (p.ret && !(p.wc && *p.ret == Result::kOK)) add(name(*p.ret));
  if (p.wc) add(name(*p.wc));
  if (p.wc_op) add(name(*p.wc_op));
  if (p.key) add("key=+" + std::to_string(*p.key));
  if (s.empty()) s = "*";
  return s;
}

std::string to_text(const Outcome& o) { return to_text(exact(o)); }

std::optional<Pattern> parse_pattern(std::string_view text, std::string& err, size_t& err_at) {
  Pattern p;
  size_t i = 0;
  bool any = false;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i >= text.size()) break;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    const std::string_view tok = text.substr(i, j - i);
    err_at = i;
    if (tok == "*") {
      any = true;
    } else if (auto r = result_from_name(tok)) {
      if (p.ret) return err = "two results in one outcome", std::nullopt;
      p.ret = r;
    } else if (auto w = wc_status_from_name(tok); w && *w != WcStatus::kNONE) {
      if (p.wc) return err = "two completion statuses in one outcome", std::nullopt;
      p.wc = w;
    } else if (auto o = wc_opcode_from_name(tok); o && *o != WcOpcode::kNONE) {
      if (p.wc_op) return err = "two completion opcodes in one outcome", std::nullopt;
      p.wc_op = o;
    } else if (tok.starts_with("key=+")) {
      unsigned v = 0;
      const auto digits = tok.substr(5);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || end != digits.data() + digits.size() || v > 255)
        return err = "key=+N takes N from 0 to 255", std::nullopt;
      p.key = static_cast<int16_t>(v);
    } else {
      return err = "unknown outcome " + quote(tok) +
                   " (expected OK, an errno name, EMPTY, SKIP, IBV_WC_* or key=+N)",
             std::nullopt;
    }
    i = j;
  }
  if (!any && !p.ret && !p.wc && !p.wc_op && !p.key) {
    err_at = 0;
    return err = "empty expected outcome", std::nullopt;
  }
  if (p.wc && !p.ret) p.ret = Result::kOK;
  return p;
}

}  // namespace mwc
