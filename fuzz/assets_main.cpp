// mwcheck_fuzz_assets OUT TRACE.mwt...: writes what the fuzz targets start
// from, generated from the trace corpus and the op and vocabulary tables:
//   OUT/mwb/NAME.mwb   each trace in binary form (binary, model, diff targets)
//   OUT/text.dict      the text form's words (fuzz_text's dictionary)
// Exit status 2 naming FILE:LINE:COL on a trace that does not parse.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "refmodel/binary_codec.hpp"
#include "refmodel/mutant.hpp"
#include "refmodel/text_codec.hpp"
#include "refmodel/vocab.hpp"

namespace {
namespace fs = std::filesystem;

std::set<std::string> dictionary() {
  using namespace mwc;
  std::set<std::string> w = {"=>", "#", ";", ":", "|", "+", "-", ".prev", "key=+", "0x",
                             "b0", "p0", "m0", "w0", "q0", "b1", "m1", "w1", "q1", "\n"};
  for (int c = 0; c < kOpCount; ++c) {
    const auto& d = op_desc(static_cast<OpCode>(c));
    w.emplace(d.name);
    for (const auto& f : d.fields) w.emplace(std::string(f.name) + "=");
  }
  for (auto table : {access_flag_names(), send_flag_names(), rereg_flag_names(), qp_type_names(),
                     qp_state_names()})
    for (const auto& n : table) w.emplace(n.name);
  for (auto table : {result_names(), wc_status_names(), wc_opcode_names()})
    for (auto n : table) w.emplace(n);
  for (const auto& p : profile_descs()) w.emplace(p.name);
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mwcheck_fuzz_assets OUT TRACE.mwt...\n");
    return 2;
  }
  const fs::path out = argv[1];
  fs::create_directories(out / "mwb");
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto r = mwc::parse_text(text);
    if (const auto* e = std::get_if<mwc::ParseError>(&r)) {
      std::fprintf(stderr, "%s:%u:%u: error: %s\n", argv[i], e->line, e->col, e->message.c_str());
      return 2;
    }
    const auto bytes = mwc::encode_mwb(std::get<mwc::Trace>(r));
    std::ofstream(out / "mwb" / (fs::path(argv[i]).stem().string() + ".mwb"), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ofstream dict(out / "text.dict");
  for (const auto& w : dictionary()) {
    std::string q;
    for (char c : w) q += c == '\n' ? std::string("\\x0A") : c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    dict << '"' << q << "\"\n";
  }
  return dict ? 0 : 2;
}
