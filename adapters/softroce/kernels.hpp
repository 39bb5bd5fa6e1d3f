// The kernels the Soft-RoCE VM can boot, as `--device` names them.
#pragma once
#include <istream>
#include <string>
#include <vector>

namespace mwc::softroce {

struct KernelChoice {
  std::string spec;  // softroce, softroce:6.12, softroce:PATH.deb
  std::string what;  // which kernel that is
};

// Returns the ways to name a kernel: the default (bookworm's
// linux-image-amd64), each kernel version Debian's package lists offer
// (apt-cache; none when it has no lists), and a package file.
std::vector<KernelChoice> kernel_choices();

// Returns MAJOR.MINOR of each linux-image-*-amd64 package among `names`
// (one package name a line, as `apt-cache pkgnames` prints them), oldest
// first, each once: the versions build-image can boot (the newest package
// of each).
std::vector<std::string> packaged_versions(std::istream& names);

}  // namespace mwc::softroce
