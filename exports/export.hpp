// Exports of a finding: standalone programs that do to a device what
// mwcheck's device session does for one trace (adapters/verbs/session_*.cpp),
// print what each op was expected to do and what it did, and say whether
// the finding reproduces. Generated from the op table like every other form
// of a trace: a runtime with one function per op (runtime.c, runtime.py)
// and one generated call per op.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "refmodel/outcome.hpp"
#include "refmodel/trace.hpp"

namespace mwc::exports {

struct Reproducer {
  std::string id;                 // the finding's id, e.g. "F-3a9c01d2"
  std::string summary;            // one line, a developer's words
  std::string rule, source;       // rule id and its citation
  Trace trace;                    // the (minimal) trace
  std::vector<Outcome> expected;  // the normative outcome of every op (the reference model's)
  size_t op = 0;                  // index of the op where the finding shows
  Outcome seen;                   // what the device did there
};

// Exit statuses of the exported programs (the Python test fails instead,
// with the verdict's word in its message).
inline constexpr int kReproduces = 1, kFixed = 0, kOtherPath = 3, kSetupFailed = 2;

// Each returns the whole source text of a standalone program for `r`: the
// ops up to and including r.op. Same input, same bytes.
std::string to_c(const Reproducer& r);        // C against libibverbs only: cc repro.c -libverbs
std::string to_pyverbs(const Reproducer& r);  // a Python unittest in rdma-core tests/ style (pyverbs)

// The files of an export folder: what write_exports() writes, and the
// program `mwcheck export --device` compiles from repro.c beside it.
inline constexpr const char* kTraceFile = "repro.mwt";
inline constexpr const char* kCFile = "repro.c";
inline constexpr const char* kPyFile = "test_repro.py";
inline constexpr const char* kProgramFile = "repro";

// Writes DIR/repro.mwt (the trace, each op with its expected outcome),
// DIR/repro.c and DIR/test_repro.py as one set (all or none replaced),
// creating DIR when its parent exists. Returns the written paths in that
// order, or an empty list (with `*err` set when given) when a file cannot
// be written.
std::vector<std::string> write_exports(const Reproducer& r, const std::string& dir,
                                       std::string* err = nullptr);

// Returns whether folder `dir` holds export files (the four above) and
// nothing else: a folder mwcheck may remove whole.
bool holds_only_exports(const std::string& dir);

}  // namespace mwc::exports
