// A deterministic generator of large realistic traces, the replay engine's
// benchmark input: a few PDs, each with its buffer, thousands of MRs and
// windows and a few QPs; then mostly remote reads and writes through the
// windows' and MRs' rkeys, the rest binds, rebinds, invalidations,
// (de)registrations and window churn, with errors sprinkled in and the QPs
// recovered after them. Ops are drawn by weight from the op table and their
// fields filled by field kind; each op carries the outcome the model gives
// it under the chosen profiles, so replay checks every verdict.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "refmodel/trace.hpp"

namespace mwc::replay {

struct GenOptions {
  uint64_t ops = 1'000'000;
  uint64_t seed = 1;
  // Weights by op name, "peer_write=440,bind_mw=25"; names left out keep
  // their default weight (kDefaultMix).
  std::string mix;
  uint32_t pds = 16, mrs_per_pd = 256, mws_per_pd = 512, qps_per_pd = 4;
  // Expectations: "all" (a fallback from verbs and a clause per profile that
  // differs), "none", or one profile's name (a fallback from it).
  std::string expect = "all";
  uint32_t error_permille = 10;  // remote ops and binds made to fail on purpose
};

inline constexpr const char* kDefaultMix =
    "peer_write=440,peer_read=440,peer_fetch_add=8,peer_cmp_swap=8,bind_mw=20,wr_bind_mw=20,"
    "wr_local_inv=10,peer_send_inv=10,wr_send=10,dereg_mr=8,rereg_mr=4,dealloc_mw=8";

// Where generated ops go: a .mwb or .mwt stream.
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void begin(const Caps& caps) = 0;
  virtual void op(const Op& op, const std::vector<Expectation>& expects) = 0;
  // Returns false when writing failed.
  virtual bool end() = 0;
};

// Returns a sink writing to `f` (not closed): binary or text.
std::unique_ptr<TraceSink> binary_sink(std::FILE* f);
std::unique_ptr<TraceSink> text_sink(std::FILE* f);

// Appends to `es` the clauses (op 0: the caller numbers them) of an op
// that expects pattern pats[c] under profile column c: a fallback from
// column `driver`, then one clause per other pattern, naming its columns.
void expect_by_column(std::span<const Pattern> pats, size_t driver, std::vector<Expectation>& es);

// Returns what is wrong with the options of a trace in `shards` shards, or
// an empty string: every check generate() makes, made before any output
// is opened.
std::string check_options(const GenOptions& o, size_t shards = 1);
// Generates a trace of exactly o.ops ops into `sink`. Returns an empty
// string, or what is wrong with the options.
std::string generate(const GenOptions& o, TraceSink& sink);
// The same trace split by PD into one trace per sink: shard s gets the ops
// of PDs [s*pds/n, (s+1)*pds/n) and their objects (the generator never
// lets objects of two PDs meet), so each shard replays alone with the
// verdicts its ops have in the whole, and the shards replay in parallel.
std::string generate(const GenOptions& o, std::span<TraceSink* const> shards);

}  // namespace mwc::replay
