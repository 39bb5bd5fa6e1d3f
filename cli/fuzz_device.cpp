#include "cli/fuzz_device.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "cli/app.hpp"
#include "cli/campaign_inputs.hpp"
#include "cli/guest.hpp"
#include "cli/load.hpp"
#include "util/output_dir.hpp"
#include "util/temp_dir.hpp"

namespace mwc::cli {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kShortestRound = 20;  // seconds: a boot and a few inputs
constexpr int kMostRounds = 50;        // boots, whatever kills the guest
constexpr size_t kJudgedPerKind = 3;   // inputs judged per kind the guest named

// Copies the seed traces into `dir`, leaving out each one that begins with
// the ops of a trace in `killers` (the guest died in its last op): a seed
// that kills the kernel would kill every round at the same place. Returns
// how many it left out.
size_t copy_seeds(const std::vector<std::string>& paths, const std::vector<Trace>& seeds,
                  const std::vector<Trace>& killers, const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  size_t left_out = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    const auto kills = [&](const Trace& k) {
      return k.ops.size() <= seeds[i].ops.size() && std::equal(k.ops.begin(), k.ops.end(), seeds[i].ops.begin());
    };
    if (std::any_of(killers.begin(), killers.end(), kills)) {
      ++left_out;
      continue;
    }
    fs::copy_file(paths[i], dir / fs::path(paths[i]).filename(), fs::copy_options::overwrite_existing, ec);
  }
  return left_out;
}

// Returns the device spec as conform --device takes it ("softroce:6.12").
std::string conform_spec(const std::string& against) {
  return against.starts_with("device:") ? against.substr(7) : against;
}

}  // namespace

int fuzz_device_campaign(const FuzzOptions& o, int vm, std::ostream& out, std::ostream& err) {
  if (o.json)
    return err << "mwcheck fuzz: error: --json: a campaign against the Soft-RoCE VM ends in findings; "
                  "--report writes them as report.json\n",
           kExitBadInput;
  // Where the rounds put their inputs: --out, else a folder of our own.
  std::error_code ec;
  const bool own = o.out.empty();
  const fs::path base = own ? temp_dir() / fmt::format("mwcheck-fuzz-{}", getpid()) : fs::path(o.out);
  if (std::string why; !make_output_dir(base.string(), why))
    return err << fmt::format("{}:1:1: error: cannot write the findings: {}\n", base.string(), why), kExitBadInput;
  const fs::path inputs = base / "inputs";
  fs::remove_all(inputs, ec);
  fs::create_directories(inputs, ec);

  // The seeds, less those the guest died in.
  std::vector<std::string> seed_paths;
  std::vector<Trace> seeds, killers;
  if (o.corpus != "none" && load_corpus(o.corpus, seed_paths, seeds, err) != kExitOk) return kExitBadInput;
  const fs::path seed_dir = base / "seeds";

  const double budget = o.runs ? 0 : (o.time > 0 ? o.time : 60);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(budget));
  int rounds = 0, deaths = 0;
  size_t kept = 0, left_out = 0;
  for (; rounds < kMostRounds; ++rounds) {
    FuzzOptions r = o;
    r.seed = o.seed + static_cast<uint64_t>(rounds);
    r.keep_going = true;
    r.minimize = false;  // shrunk below, on the host, surviving the candidates that kill the guest
    r.out = (base / fmt::format("round-{}", rounds)).string();
    if (!seeds.empty()) {
      const size_t n = copy_seeds(seed_paths, seeds, killers, seed_dir);
      if (n > left_out) out << fmt::format("fuzz: {} seed trace{} the guest died in left out\n", n, n == 1 ? "" : "s");
      left_out = n;
      r.corpus = n == seeds.size() ? "none" : seed_dir.string();
    }
    fs::remove_all(r.out, ec);
    if (!o.runs) {
      r.time = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (rounds > 0 && r.time < kShortestRound) break;
    }
    out << fmt::format("fuzz: round {} (seed {}){}\n", rounds + 1, r.seed,
                       o.runs ? fmt::format(", {} inputs", o.runs) : fmt::format(", {:.0f} s left", r.time));
    if (fuzz_in_softroce(r, vm, out, err) == kExitBadInput) {
      if (own) fs::remove_all(base, ec);
      return kExitBadInput;
    }
    // What the round found: the guest's reproducers, and the input the guest died in.
    bool died = false;
    for (fs::directory_iterator it(r.out, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() != ".mwt") continue;
      if (it->path().filename() == kGuestKernelFinding) {
        died = true;
        if (auto k = load_trace(it->path().string(), err)) killers.push_back(std::move(*k));
      }
      fs::copy_file(it->path(), inputs / fmt::format("r{:02}-{}", rounds, it->path().filename().string()),
                    fs::copy_options::overwrite_existing, ec);
      ++kept;
    }
    deaths += died;
    if (!died && (o.runs || std::chrono::duration<double>(deadline - Clock::now()).count() < kShortestRound)) {
      ++rounds;
      break;
    }
  }
  out << fmt::format("fuzz: {} round{}, {} guest death{}, {} input{} kept\n", rounds, rounds == 1 ? "" : "s",
                     deaths, deaths == 1 ? "" : "s", kept, kept == 1 ? "" : "s");
  int status = kExitOk;
  if (kept > 0) {
    // Rounds find the same divergences again: judge a few of each kind.
    const JudgeChoice choice = choose_inputs(inputs.string(), kJudgedPerKind);
    const fs::path judged = base / "judged";
    fs::remove_all(judged, ec);
    fs::create_directories(judged, ec);
    for (const auto& p : choice.paths) fs::copy_file(p, judged / fs::path(p).filename(), ec);
    out << fmt::format("fuzz: judging {} input{} ({} kind{}, at most {} each; one per kernel crash)\n",
                       choice.paths.size(), choice.paths.size() == 1 ? "" : "s", choice.kinds,
                       choice.kinds == 1 ? "" : "s", kJudgedPerKind);
    // Judged by the specification, grouped, shrunk and reported as a corpus is.
    ConformOptions c;
    c.devices = {conform_spec(o.against[static_cast<size_t>(vm)])};
    c.dev = o.dev;
    c.corpus = judged.string();
    c.attacks = "none";
    c.report = o.report;
    c.shrink_seconds = o.shrink_seconds;
    status = cmd_conform_devices(c, out, err);
  }
  if (own) fs::remove_all(base, ec);
  return status;
}

}  // namespace mwc::cli
