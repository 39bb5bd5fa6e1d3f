#include <iostream>

#include "cli/app.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return mwc::cli::run_app(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
