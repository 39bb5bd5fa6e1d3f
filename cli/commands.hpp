// The verbs of mwcheck. Each returns the program's exit status.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "replay/gen.hpp"

namespace mwc::cli {

struct RunOptions {
  std::string profile = "verbs";
  bool check = false;
  bool quiet = false;
  std::vector<std::string> files;
};
int cmd_run(const RunOptions& o, std::ostream& out, std::ostream& err);

struct DiffOptions {
  std::vector<std::string> against;
  std::vector<std::string> files;
};
int cmd_diff(const DiffOptions& o, std::ostream& out, std::ostream& err);

struct ProfilesOptions {
  bool json = false;
};
int cmd_profiles(const ProfilesOptions& o, std::ostream& out, std::ostream& err);

struct ConvertOptions {
  std::string in, out;
};
int cmd_convert(const ConvertOptions& o, std::ostream& out, std::ostream& err);

struct ConformOptions {
  std::vector<std::string> profiles;
  std::string corpus;
  std::string report;
};
int cmd_conform(const ConformOptions& o, std::ostream& out, std::ostream& err);

struct ReplayOptions {
  std::string profile = "verbs";
  int threads = 1;
  bool quiet = false;  // no throughput figures
  std::vector<std::string> files;
};
int cmd_replay(const ReplayOptions& o, std::ostream& out, std::ostream& err);

struct GenOptions {
  replay::GenOptions gen;
  std::string out;
  bool binary = false;  // binary even without the .mwb extension (for "-")
};
int cmd_gen(const GenOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
