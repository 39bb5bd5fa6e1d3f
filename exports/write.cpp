#include <filesystem>
#include <string>

#include "exports/export.hpp"
#include "exports/source_text.hpp"
#include "refmodel/text_codec.hpp"
#include "util/atomic_file.hpp"
#include "util/output_dir.hpp"

namespace mwc::exports {
namespace {

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

bool holds_only_exports(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec), ++n) {
    const std::string name = it->path().filename().string();
    const bool ours = name == kTraceFile || name == kCFile || name == kPyFile || name == kProgramFile;
    if (!ours || !it->is_regular_file(ec) || it->is_symlink(ec)) return false;
  }
  return !ec && n > 0;
}

std::vector<std::string> write_exports(const Reproducer& r, const std::string& dir, std::string* err) {
  namespace fs = std::filesystem;
  std::string why;
  if (!make_output_dir(dir, why)) {
    if (err) *err = "cannot create " + dir + ": " + why;
    return {};
  }
  const std::vector<OutputFile> files = {
      {(fs::path(dir) / kTraceFile).string(), print_text(annotated(r))},
      {(fs::path(dir) / kCFile).string(), to_c(r)},
      {(fs::path(dir) / kPyFile).string(), to_pyverbs(r)},
  };
  // The three belong together: all written, or none replaced.
  if (!write_files(files, why)) {
    if (err) *err = "cannot write " + why;
    return {};
  }
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path);
  return paths;
}

}  // namespace mwc::exports
