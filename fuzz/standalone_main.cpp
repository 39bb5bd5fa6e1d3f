// The driver a fuzz target links when libFuzzer is absent: replays every
// file named, and every file inside every folder named (in name order),
// through LLVMFuzzerTestOneInput. Arguments starting with '-' go to
// LLVMFuzzerInitialize only. Exit status 0 after replaying all, 2 when a
// path cannot be read; a broken property aborts, as under libFuzzer.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.starts_with("-")) continue;
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      std::vector<fs::path> in;
      for (fs::directory_iterator it(a, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file()) in.push_back(it->path());
      std::sort(in.begin(), in.end());
      files.insert(files.end(), in.begin(), in.end());
    } else {
      files.emplace_back(a);
    }
    if (ec) {
      std::fprintf(stderr, "%s:1:1: error: cannot read: %s\n", a.c_str(), ec.message().c_str());
      return 2;
    }
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s:1:1: error: cannot open\n", f.c_str());
      return 2;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replaying %s (%zu bytes)\n", f.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%s: replayed %zu inputs\n", argc ? argv[0] : "fuzz target", files.size());
  return 0;
}
