#include <filesystem>
#include <fstream>
#include <system_error>

#include "exports/export.hpp"
#include "exports/source_text.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::exports {
namespace {

bool write_file(const std::string& path, const std::string& text, std::string* err) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (out) return true;
  if (err) *err = "cannot write " + path;
  return false;
}

// The trace an export runs, each op with the outcome the specification
// gives it, as the one expectation clause of that op.
Trace annotated(const Reproducer& r) {
  Trace t = r.trace;
  t.ops.resize(ops_to_run(r));
  if (t.lines.size() > t.ops.size()) t.lines.resize(t.ops.size());
  t.expects.clear();
  for (uint32_t i = 0; i < t.ops.size() && i < r.expected.size(); ++i)
    t.expects.push_back(Expectation{i, true, 0, exact(r.expected[i])});
  std::erase_if(t.comments, [&](const Comment& c) { return c.op > t.ops.size(); });
  Comment head{0, false, " " + comment_safe(header_title(r), "")};
  t.comments.insert(t.comments.begin(), head);
  return t;
}

}  // namespace

std::vector<std::string> write_exports(const Reproducer& r, const std::string& dir, std::string* err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    if (err) *err = "cannot create " + dir + ": " + ec.message();
    return {};
  }
  const std::vector<std::pair<std::string, std::string>> files = {
      {(fs::path(dir) / "repro.mwt").string(), print_text(annotated(r))},
      {(fs::path(dir) / "repro.c").string(), to_c(r)},
      {(fs::path(dir) / "test_repro.py").string(), to_pyverbs(r)},
  };
  std::vector<std::string> paths;
  for (const auto& [path, text] : files) {
    if (!write_file(path, text, err)) return {};
    paths.push_back(path);
  }
  return paths;
}

}  // namespace mwc::exports
