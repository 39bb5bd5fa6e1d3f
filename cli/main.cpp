#include <cerrno>
#include <cstring>
#include <iostream>
#include <new>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  try {
    const int rc = mwc::cli::run_app(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
    // Output lost on the way out (a full disk, a device that refuses it)
    // is a failure, never a success with nothing written.
    errno = 0;
    if (!std::cout.flush()) {
      std::cerr << "mwcheck: error: cannot write the standard output"
                << (errno ? std::string(": ") + std::strerror(errno) : std::string()) << "\n";
      return mwc::cli::kExitBadInput;
    }
    return rc;
  } catch (const std::bad_alloc&) {
    // An input within the limits may still need more memory than the
    // machine grants (diff of a 256 MiB text trace under a small ulimit).
    std::cout.flush();
    std::cerr << "mwcheck: error: out of memory\n";
    return mwc::cli::kExitBadInput;
  } catch (const std::exception& e) {
    // Nothing mwcheck knows of throws past run_app(): what does is a bug of
    // mwcheck, said as one (and not as bad input) instead of an abort.
    std::cout.flush();
    std::cerr << "mwcheck: internal error: " << e.what()
              << "\n(a bug of mwcheck: please report it with the command and its input)\n";
    return mwc::cli::kExitInternal;
  }
}
