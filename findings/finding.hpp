// Findings: what a device does wrong, judged against a yardstick (a
// normative profile with the device's readings), one per root cause.
//
// Each trace's first divergence from the yardstick is a symptom, classified
// by severity; symptoms that went wrong the same way (rule, op, the
// device's and the yardstick's outcome classes, crash signature) are one
// finding, whichever traces reached it.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "findings/device_run.hpp"
#include "refmodel/outcome.hpp"
#include "refmodel/profile.hpp"
#include "refmodel/trace.hpp"

namespace mwc::findings {

// Most severe first.
#define MWC_SEVERITIES(S)                                                                      \
  S(security, "the device grants an access or keeps a key valid that the specification refuses") \
  S(crash, "a kernel oops or panic, or a crash in the provider library")                       \
  S(hang, "a call or a completion that does not come within the harness's limit (--op-timeout)") \
  S(conformance, "a wrong errno, completion status or state")                                  \
  S(unsupported,                                                                               \
    "an op not run: a verb or state the device lacks, a verb libibverbs lacks, or an op mwcheck's " \
    "device session cannot express; listed apart, not counted as a failure")

enum class Severity : uint8_t {
#define S(name, what) name,
  MWC_SEVERITIES(S)
#undef S
};
inline constexpr int kSeverityCount = 5;

// The key of one root cause met on many paths: a work request refused at
// post that runs later anyway.
inline constexpr std::string_view kRefusedPostRuns = "conformance|refused post runs";
// Each returns the name or the meaning of a severity.
std::string_view name(Severity s);
std::string_view meaning(Severity s);

// How one trace on a device stands against the yardstick.
enum class Verdict : uint8_t {
  match,        // every op as the yardstick says
  finding,      // a symptom of a finding
  unsupported,  // an op the trace needs was not run (Lack: whose lack it is)
  unknown,      // the model cannot know what the device may do from some op on
};
std::string_view name(Verdict v);

// One trace's first divergence from the yardstick, classified.
struct Symptom {
  Verdict verdict = Verdict::match;
  Severity severity = Severity::conformance;
  size_t op = 0;                // the op (index) where it shows
  Outcome device, model;        // there
  std::string signature;        // a crash's: where it crashed
  std::string key;              // what went wrong, whatever the trace (findings group by it)
  std::string why;              // unknown and unsupported: the reason
  uint32_t waited_ms = 0;       // a hang: how long the harness waited, when its account says
};

// Returns how a device's outcomes of trace `t` stand against the
// yardstick's `model` outcomes; `note` is what the device backend said of
// the run (a crash's account).
Symptom classify(const Trace& t, const std::vector<Outcome>& device,
                 const std::vector<Outcome>& model, const std::string& note);

// Returns whether symptom `s` of trace `t` is a bind the device made where
// yardstick `y` refuses it only for flags a window may not carry
// (bind.mw_access): `y` makes the same bind with those flags left out, or
// the window carries no remote right. Such a device lacks a check of the
// flags; it grants the peer no right the specification refuses, so the
// finding is one of conformance, not security.
bool grants_nothing_refused(const Trace& t, const Symptom& s, const Profile& y);

// Returns an outcome's class, as finding keys name it: its text with the
// key byte's value left out ("OK +key": a bind that reported a key).
std::string outcome_class(Outcome o);

// Returns a finding's id: stable across runs, devices and kernels, as
// long as what went wrong is the same ("F" and 8 hex digits of its key).
std::string finding_id(std::string_view key);
// Returns whether `s` has the form finding_id() gives.
bool is_finding_id(std::string_view s);

// Returns where a crash happened, from a device backend's note: the first
// frame of a kernel oops (its RIP), or the provider's faulting code, or
// the signal; empty when the note says none.
std::string crash_signature(std::string_view note);

struct TraceRef {
  std::string trace;  // file name
  size_t op = 0;      // the op (index) where the finding shows
};

// One finding on one or more devices.
struct Finding {
  std::string id, key;
  Severity severity = Severity::conformance;
  std::string summary;  // one line, in a driver developer's words
  std::string rule_id, source, statement;
  std::string op;                       // the op's name
  std::string device_outcome, expected_outcome;
  std::string signature;
  std::string kernel;                   // what the kernel reported as a trace of it ran (WARNINGs, oopses)
  std::string kernel_trace;             // ... that trace (its reproducer may not make the kernel report)
  std::string kernel_same_as;           // the finding whose report that is, when it came at the process's exit
  std::string yardstick;                // the profile it is judged by
  std::vector<std::string> devices;     // labels of the devices where it shows
  std::vector<std::string> absent_on;   // ... and of those where it does not
  std::vector<TraceRef> traces;         // every trace that reaches it, on the first device
  Trace reproducer;                     // the smallest trace that shows it
  size_t reproducer_op = 0;             // its op where it shows
  size_t ops_before = 0;                // length of the trace it was shrunk from
  size_t runs = 0;                      // device runs shrinking took
  bool minimal = false;                 // 1-minimal, checked on the device
  std::string shrink_note;              // why shrinking stopped short
  std::vector<Outcome> expected;        // the yardstick's outcome of every reproducer op
  Outcome seen;                         // the device's outcome at reproducer_op
  std::vector<std::string> exports;     // files written for it
};

// Whose lack an unsupported finding shows: the device's (an optional verb
// or state it does not implement), libibverbs' (a verb it has no call
// for), or mwcheck's own device session's (an op it cannot express, such
// as an access longer than the peer's buffer). Only the first says
// anything of the device.
enum class Lack : uint8_t { device, library, harness };
inline constexpr size_t kLackCount = 3;
// Returns whose lack an op of code c that the device answered r shows
// (r UNSUPPORTED: the session did not run it; else the device refused).
Lack lack_of(Result r, OpCode c);
// Returns whose lack unsupported finding f shows.
Lack lack_of(const Finding& f);

// Returns outcome text `outcome` of finding f's op as a report's reader
// reads it beside `other`, the outcome it is set against: a bind's bare
// "OK" where the other gave a key is a bind that did not take effect, and
// says so.
std::string outcome_words(const Finding& f, std::string_view outcome, std::string_view other);

// Returns the one-line summary of a symptom of op `op_name`.
std::string summarize(const Symptom& s, std::string_view op_name);

// Groups the symptoms of one device's corpus run (`symptoms[i]` of
// `corpus[i]`) into findings, most severe first, then by id. The
// representative reproducer of each is its shortest trace, up to the op
// where it shows.
std::vector<Finding> group(const std::vector<CorpusTrace>& corpus,
                           const std::vector<Symptom>& symptoms, const std::string& device_label,
                           const std::string& yardstick);

// Merges the findings of several devices (same ids: one finding, shown on
// each of them) and fills in where each is absent. `labels` are every
// device's. Returns them most severe first.
std::vector<Finding> merge(const std::vector<std::vector<Finding>>& per_device,
                           const std::vector<std::string>& labels);

// Counts findings by severity.
std::array<size_t, kSeverityCount> count(const std::vector<Finding>& f);

}  // namespace mwc::findings
