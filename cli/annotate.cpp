#include "cli/annotate.hpp"

#include "refmodel/text_codec.hpp"

namespace mwc::cli {

std::string annotate(const Trace& t, const std::vector<Outcome>& outcomes, int column,
                     const std::string& who) {
  std::string s;
  size_t ci = 0;
  for (uint32_t i = 0; i <= t.ops.size(); ++i) {
    for (; ci < t.comments.size() && t.comments[ci].op == i && !t.comments[ci].end_of_line; ++ci)
      s += "#" + t.comments[ci].text + "\n";
    if (i == t.ops.size()) break;
    s += op_to_text(t.ops[i]) + " => " + to_text(outcomes[i]);
    for (; ci < t.comments.size() && t.comments[ci].op == i && t.comments[ci].end_of_line; ++ci)
      s += "  #" + t.comments[ci].text;
    s += "\n";
    if (const Pattern* p = expected(t, i, column); p && !matches(*p, outcomes[i]))
      s += "# ^ MISMATCH under " + who + ": expected " + to_text(*p) +
           (outcomes[i].rule == Rule::observed ? std::string()
                                               : " (rule " + std::string(rule_desc(outcomes[i].rule).id) + ")") +
           "\n";
  }
  for (; ci < t.comments.size(); ++ci) s += "#" + t.comments[ci].text + "\n";
  return s;
}

}  // namespace mwc::cli
