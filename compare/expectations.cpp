#include "compare/expectations.hpp"

#include "refmodel/text_codec.hpp"

namespace mwc {

std::string where(const std::string& path, const Trace& t, size_t i) {
  // (No fmt here: the fuzz build, which has none, links this.)
  if (i < t.lines.size()) return path + ":" + std::to_string(t.lines[i]);
  return path + ":op " + std::to_string(i + 1);
}

Mismatch mismatch_at(const std::string& path, const Trace& t, size_t i, const Outcome& o, const Pattern& p) {
  return {i, path.empty() ? std::string() : where(path, t, i), op_to_text(t.ops[i]), to_text(o), to_text(p),
          std::string(rule_desc(o.rule).id)};
}

std::vector<Mismatch> check_expectations(const std::string& path, const Trace& t, std::span<const Outcome> outcomes,
                                         int column, std::vector<uint32_t>* checked) {
  std::vector<Mismatch> r;
  for (uint32_t i = 0; i < t.ops.size() && i < outcomes.size(); ++i) {
    const Pattern* p = expected(t, i, column);
    if (!p) continue;
    if (checked) checked->push_back(i);
    if (!matches(*p, outcomes[i])) r.push_back(mismatch_at(path, t, i, outcomes[i], *p));
  }
  return r;
}

std::string mismatch_line(const Mismatch& m, const std::string& who) {
  return m.where + ": mismatch under " + who + ": " + m.text + " => " + m.observed + ", expected " + m.expected +
         " (rule " + m.rule + ")\n";
}

}  // namespace mwc
