// The verbs of mwcheck. Each returns the program's exit status.
#pragma once
#include <ostream>
#include <string>
#include <vector>

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

struct FuzzOptions {
  std::vector<std::string> against;
  uint64_t seed = 1;
  double time = 0;     // seconds
  uint64_t runs = 0;
  std::string out;
  std::string corpus;  // seed traces ("none": start from nothing)
  bool keep_going = false;
  size_t max_ops = 64;
};
int cmd_fuzz(const FuzzOptions& o, std::ostream& out, std::ostream& err);

struct PowerOptions {
  int seeds = 5;
  double budget = 60;  // seconds per campaign
  std::string corpus;
};
int cmd_power(const PowerOptions& o, std::ostream& out, std::ostream& err);

}  // namespace mwc::cli
