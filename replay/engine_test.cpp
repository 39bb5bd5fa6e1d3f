#include "replay/engine.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "adapters/model_backend.hpp"
#include "refmodel/binary_codec.hpp"
#include "refmodel/test_util.hpp"
#include "replay/engine_diff.hpp"
#include "replay/gen.hpp"
#include "replay/replay.hpp"

namespace mwc::replay {
namespace {
namespace fs = std::filesystem;

// The profiles a corpus trace is replayed under: the five columns, and two
// knob-adjusted ones that check fallback clauses only (and so mismatch).
struct Under {
  std::string spec;
  int column;
};
std::vector<Under> unders() {
  std::vector<Under> u;
  for (int c = 0; c < kProfileCount; ++c) u.push_back({std::string(profile_descs()[c].name), c});
  u.push_back({"verbs+remote_range=mr_only", -1});
  u.push_back({"det+bind_errors=completion", -1});
  return u;
}

Profile parse(const std::string& spec) {
  std::string err;
  auto p = parse_profile(spec, err);
  EXPECT_TRUE(p) << err;
  return *p;
}

void expect_same(const Verdicts& got, const Verdicts& want, const std::string& what) {
  EXPECT_EQ(verdicts_diff(got, want), "") << what;
}

TEST(Engine, CorpusReplaysWithRunsOutcomesAndVerdicts) {
  const auto files = testing::corpus_files();
  ASSERT_GE(files.size(), 40u);
  uint64_t mismatches = 0;
  for (const auto& f : files) {
    const Trace t = testing::parse_or_fail(testing::read_file(f));
    for (const uint16_t version : {uint16_t{1}, uint16_t{2}, uint16_t{3}})
    for (const auto& u : unders()) {
      std::vector<Outcome> outs;
      ModelBackend(parse(u.spec), u.column).run(t, outs);
      mismatches += run_verdicts(t, outs, u.column).mismatches;
      // Outcomes and rules as Model::step's, verdicts as run's, with
      // outcomes recorded and on the record loop's own lane.
      const size_t whole = encode_mwb(t, version).size();
      for (const size_t step : {size_t{1}, size_t{7}, whole})
        EXPECT_EQ(engine_divergence(t, parse(u.spec), u.column, version, step), "")
            << f.filename().string() << " under " << u.spec << " version " << version << " in pieces of "
            << step;
    }
  }
  EXPECT_GT(mismatches, 0u) << "the adjusted profiles should mismatch somewhere";
}

// The record bytes of a .mwb image, as a replay source.
uint64_t body_size(const std::vector<uint8_t>& mwb) { return records_of(mwb).size(); }
Source memory(const std::vector<uint8_t>& mwb) {
  return [&mwb](uint64_t begin, uint64_t end, const Feed& feed) {
    feed(std::span(mwb).subspan(kMwbHeaderSize + begin, end - begin));
    return std::string();
  };
}

// Any bytes, in either version: the engine decodes them as the codec does
// and decides each op as `run` does, its fast path included.
TEST(Engine, AnyRecordsReplayAsTheCodecDecodesThem) {
  std::mt19937_64 rng(7);
  const Caps caps{2, 2, 3, 3, 3};
  for (int round = 0; round < 3000; ++round) {
    const uint16_t version = round % 3 ? 2 : 1;
    std::vector<uint8_t> bytes(rng() % 600);
    for (auto& b : bytes) {
      b = static_cast<uint8_t>(rng());
      // Mostly compact records of version 2, so the fast path is reached.
      if (version == 2 && rng() % 4 == 0) b = mwb::format(version).byte_of[mwb::kCompactBase + rng() % 4];
    }
    const Trace t = decode_records(bytes, caps, {}, version);
    const int column = static_cast<int>(rng() % kProfileCount);
    const Profile p = profile(static_cast<ProfileId>(column));
    std::vector<Outcome> want, got;
    ModelBackend(p, column).run(t, want);
    Engine e(p, column, caps, version);
    e.record_outcomes(&got);
    const size_t used = e.feed(bytes);
    EXPECT_LE(used, bytes.size());
    const Verdicts v = e.finish();
    ASSERT_EQ(got.size(), want.size()) << "round " << round;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << "round " << round << " op " << i + 1;
      EXPECT_EQ(got[i].rule, want[i].rule) << "round " << round << " op " << i + 1;
    }
    expect_same(v, run_verdicts(t, want, column), "round " + std::to_string(round));
    // Without outcomes recorded, runs of usual records take the record
    // loop's own fast lane: the same verdicts.
    Engine fast(p, column, caps, version);
    fast.feed(bytes);
    expect_same(fast.finish(), v, "round " + std::to_string(round) + " (fast lane)");
  }
}

TEST(Engine, ShardedReplayDecidesAsOneThread) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_engine_test";
  fs::create_directories(dir);
  for (const auto& f : testing::corpus_files()) {
    const Trace t = testing::parse_or_fail(testing::read_file(f));
    const auto mwb = encode_mwb(t);
    const fs::path path = dir / (f.stem().string() + ".mwb");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(mwb.data()), static_cast<long>(mwb.size()));
    for (const auto& u : unders()) {
      const ReplayRun one = replay_file(path, parse(u.spec), u.column, 1);
      const ReplayRun four = replay_sharded(memory(mwb), body_size(mwb), t.caps, parse(u.spec),
                                            u.column, 4, kMwbVersion);
      const ReplayRun ahead = replay_file(path, parse(u.spec), u.column, 2);  // read ahead
      ASSERT_EQ(one.error, "");
      ASSERT_EQ(four.error, "");
      ASSERT_EQ(ahead.error, "");
      EXPECT_EQ(one.bytes, body_size(mwb));
      EXPECT_EQ(ahead.bytes, body_size(mwb));
      expect_same(four.verdicts, one.verdicts, path.string() + " under " + u.spec);
      expect_same(ahead.verdicts, one.verdicts, path.string() + " read ahead under " + u.spec);
    }
  }
}

// Writes the .mwb trace `gen` makes of o to path; returns its bytes.
std::vector<uint8_t> generated(const fs::path& path, const GenOptions& o) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  EXPECT_TRUE(f);
  if (!f) return {};
  EXPECT_EQ(generate(o, *binary_sink(f)), "");
  std::fclose(f);
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A generated trace splits by PD: two shards, the verdicts of one thread,
// and under a knob-adjusted profile the same mismatches in the same order.
TEST(Engine, GeneratedTracesSplitIntoShards) {
  const fs::path path = fs::temp_directory_path() / "mwcheck_engine_test_gen.mwb";
  GenOptions o;
  o.ops = 20000;
  o.pds = 5, o.mrs_per_pd = 8, o.mws_per_pd = 32, o.qps_per_pd = 2;
  const std::vector<uint8_t> mwb = generated(path, o);
  ASSERT_GT(mwb.size(), kMwbHeaderSize);
  const Trace t = std::get<Trace>(decode_mwb(mwb));
  for (const auto& [spec, column] : {std::pair{"mlx5", 4}, {"verbs+dereg_bound=allowed", -1}}) {
    const ReplayRun one = replay_file(path, parse(spec), column, 1);
    const ReplayRun two = replay_sharded(memory(mwb), body_size(mwb), t.caps, parse(spec), column, 2,
                                         kMwbVersion);
    ASSERT_EQ(two.error, "");
    EXPECT_EQ(two.shards, 2);
    // One file on two threads: one engine and a thread reading ahead; on
    // three, the same and a note saying to shard.
    const ReplayRun file_two = replay_file(path, parse(spec), column, 2);
    EXPECT_EQ(file_two.shards, 1);
    EXPECT_EQ(file_two.note, "");
    expect_same(file_two.verdicts, one.verdicts, spec);
    const ReplayRun file_three = replay_file(path, parse(spec), column, 3);
    EXPECT_NE(file_three.note.find("--shards"), std::string::npos);
    expect_same(file_three.verdicts, one.verdicts, spec);
    EXPECT_EQ(one.verdicts.ops, 20000u);
    expect_same(two.verdicts, one.verdicts, spec);
    // Most of the mix is decided by the data path, not the model: check
    // words that refused every access would agree with the model too.
    Engine e(parse(spec), column, t.caps, kMwbVersion);
    const std::span<const uint8_t> rec(mwb.data() + kMwbHeaderSize, body_size(mwb));
    EXPECT_EQ(e.feed(rec), rec.size());
    expect_same(e.finish(), one.verdicts, spec);
    EXPECT_GT(e.fast_ops(), 20000u * 6 / 10) << spec;
  }
}

// Compact records with nothing expected (bare codes) run in the record
// loop's lane as folded ones do: a generated trace with a third of its ops'
// expectations dropped, and a third left with a profile's clause and no
// fallback (so that a bare record is followed by expectations), decides
// as `run` does, its outcomes and verdicts alike, under every profile.
TEST(Engine, BareRecordsRunInTheLaneToo) {
  const fs::path path = fs::temp_directory_path() / "mwcheck_engine_test_bare.mwb";
  GenOptions o;
  o.ops = 6000;
  o.pds = 3, o.mrs_per_pd = 8, o.mws_per_pd = 16, o.qps_per_pd = 2;
  o.error_permille = 50;
  const std::vector<uint8_t> mwb = generated(path, o);
  fs::remove(path);
  ASSERT_GT(mwb.size(), kMwbHeaderSize);
  Trace t = std::get<Trace>(decode_mwb(mwb));
  std::vector<Expectation> kept;
  for (const Expectation& e : t.expects) {
    if (e.op % 3 == 0) continue;
    if (e.op % 3 == 1 && e.fallback) {
      // The fallback becomes the clause of mlx5 alone (if no clause names it).
      const uint8_t mlx5 = uint8_t{1} << static_cast<int>(ProfileId::mlx5);
      const bool named = std::any_of(t.expects.begin(), t.expects.end(), [&](const Expectation& x) {
        return x.op == e.op && !x.fallback && (x.profiles & mlx5);
      });
      if (!named) kept.push_back(Expectation{e.op, false, mlx5, e.pattern});
      continue;
    }
    kept.push_back(e);
  }
  t.expects = kept;
  const auto bytes = encode_mwb(t, kMwbVersion);
  uint64_t bare = 0;
  for (size_t at = kMwbHeaderSize; at < kMwbHeaderSize + body_size(bytes);) {
    const uint8_t code = mwb::format(kMwbVersion).code_of[bytes[at]];
    bare += mwb::is_compact(code) && !((code - mwb::kCompactBase) & 1);
    at += mwb::format(kMwbVersion).size[code];
  }
  EXPECT_GT(bare, 6000u / 4) << "the trace should hold bare compact records";
  for (const auto& u : unders())
    for (const size_t step : {size_t{5}, bytes.size()})
      EXPECT_EQ(engine_divergence(t, parse(u.spec), u.column, kMwbVersion, step), "")
          << "under " << u.spec << " in pieces of " << step;
}

// Returns each mismatch as "op / observed / expected", sorted: what shards
// of a trace must find together, whatever their op numbers.
std::vector<std::string> mismatch_texts(const std::vector<Verdicts>& vs) {
  std::vector<std::string> all;
  for (const auto& v : vs)
    for (const auto& m : v.first) all.push_back(m.text + " / " + m.observed + " / " + m.expected);
  std::sort(all.begin(), all.end());
  return all;
}

// gen --shards: the shards hold the whole trace's ops split by PD and,
// replayed alone (on one thread or two), find the whole's verdicts.
TEST(Engine, ShardFilesReplayAsTheWhole) {
  const fs::path dir = fs::temp_directory_path() / "mwcheck_engine_test_shards";
  fs::create_directories(dir);
  GenOptions o;
  o.ops = 20000;
  o.pds = 5, o.mrs_per_pd = 8, o.mws_per_pd = 32, o.qps_per_pd = 2;
  const std::string whole = dir / "whole.mwb";
  const std::vector<std::string> parts = {dir / "part.0.mwb", dir / "part.1.mwb"};
  std::vector<std::FILE*> files;
  for (const auto& path : {whole, parts[0], parts[1]})
    files.push_back(std::fopen(path.c_str(), "wb"));
  for (std::FILE* f : files) ASSERT_TRUE(f);
  EXPECT_EQ(generate(o, *binary_sink(files[0])), "");
  const auto a = binary_sink(files[1]), b = binary_sink(files[2]);
  TraceSink* const shards[] = {a.get(), b.get()};
  EXPECT_EQ(generate(o, shards), "");
  for (std::FILE* f : files) std::fclose(f);

  for (const auto& [spec, column] : {std::pair{"mlx5", 4}, {"verbs+dereg_bound=allowed", -1}}) {
    const ReplayRun all = replay_file(whole, parse(spec), column, 1);
    const auto one = replay_files(parts, parse(spec), column, 1);
    const auto two = replay_files(parts, parse(spec), column, 2);
    ASSERT_EQ(one.size(), 2u);
    ASSERT_EQ(two.size(), 2u);
    Verdicts sum;
    for (size_t i = 0; i < 2; ++i) {
      ASSERT_EQ(two[i].error, "");
      EXPECT_GT(one[i].verdicts.ops, 0u) << spec;
      expect_same(two[i].verdicts, one[i].verdicts, parts[i] + " under " + spec);
      sum.ops += one[i].verdicts.ops;
      sum.checked += one[i].verdicts.checked;
      sum.mismatches += one[i].verdicts.mismatches;
    }
    EXPECT_EQ(sum.ops, 20000u) << spec;
    EXPECT_EQ(sum.checked, all.verdicts.checked) << spec;
    EXPECT_EQ(sum.mismatches, all.verdicts.mismatches) << spec;
    ASSERT_LT(all.verdicts.mismatches, Verdicts::kKeep) << spec;
    EXPECT_EQ(mismatch_texts({one[0].verdicts, one[1].verdicts}), mismatch_texts({all.verdicts}))
        << spec;
  }
  EXPECT_GT(replay_file(whole, parse("verbs+dereg_bound=allowed"), -1, 1).verdicts.mismatches, 0u);
}

// A pipe cannot be read twice and does not say where the string table
// starts: the reader holds back as many bytes as the header says it has.
TEST(Engine, PipesStreamWithTheStringTableHeldBack) {
  const fs::path fifo = fs::temp_directory_path() / "mwcheck_engine_test_fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int piped_traces = 0;
  for (const auto& f : testing::corpus_files()) {
    const Trace t = testing::parse_or_fail(testing::read_file(f));
    if (t.comments.empty()) continue;  // only traces with a string table
    const auto mwb = encode_mwb(t);
    std::thread writer([&] {
      std::ofstream(fifo, std::ios::binary)
          .write(reinterpret_cast<const char*>(mwb.data()), static_cast<long>(mwb.size()));
    });
    const ReplayRun piped = replay_file(fifo, profile(ProfileId::rxe), 3, 2);
    writer.join();
    std::vector<Outcome> outs;
    ModelBackend(profile(ProfileId::rxe), 3).run(t, outs);
    ASSERT_EQ(piped.error, "");
    expect_same(piped.verdicts, run_verdicts(t, outs, 3), f.string() + " through a pipe");
    ++piped_traces;
  }
  fs::remove(fifo);
  EXPECT_GE(piped_traces, 20);
}

TEST(Engine, BadFilesSayWhy) {
  const ReplayRun missing = replay_file("/nonexistent/x.mwb", parse("verbs"), 1, 1);
  EXPECT_NE(missing.error.find("/nonexistent/x.mwb:1:1: error: cannot open"), std::string::npos);
  const fs::path bad = fs::temp_directory_path() / "mwcheck_engine_test_bad.mwb";
  std::ofstream(bad, std::ios::binary) << "MWTBxx";
  const ReplayRun r = replay_file(bad, parse("verbs"), 1, 2);
  EXPECT_NE(r.error.find(":1:1: error: truncated"), std::string::npos) << r.error;
}

// gen's options are checked where a trace is generated, whoever asks
// (the CLI's own range check aside): errors are per mille.
TEST(Engine, GeneratorRefusesErrorsPastAThousandPerMille) {
  GenOptions o;
  o.ops = 10;
  EXPECT_EQ(check_options(o), "");
  o.error_permille = 1000;
  EXPECT_EQ(check_options(o), "");
  o.error_permille = 1001;
  EXPECT_EQ(check_options(o), "errors are per mille: at most 1000");
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(generate(o, *binary_sink(f)), "errors are per mille: at most 1000");
  EXPECT_EQ(std::ftell(f), 0) << "nothing is written before the options are checked";
  std::fclose(f);
}

// A trace of no ops on several threads: no piece of work, so no job (job
// 0 of none used to run, on a partition that was never made), and one
// engine that runs nothing.
TEST(Engine, EmptyTraceReplaysOnThreads) {
  const Source none = [](uint64_t, uint64_t, const Feed&) { return std::string(); };
  for (const int threads : {1, 2, 4}) {
    const ReplayRun run = replay_sharded(none, 0, Trace{}.caps, parse("verbs"), 1, threads);
    EXPECT_EQ(run.error, "");
    EXPECT_EQ(run.verdicts.ops, 0u);
    EXPECT_EQ(run.shards, 1);
  }
}

}  // namespace
}  // namespace mwc::replay
