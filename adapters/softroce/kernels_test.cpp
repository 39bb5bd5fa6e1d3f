#include "adapters/softroce/kernels.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace mwc::softroce {
namespace {

std::vector<std::string> versions(const std::string& names) {
  std::istringstream in(names);
  return packaged_versions(in);
}

TEST(Kernels, EachVersionOnceOldestFirst) {
  EXPECT_EQ(versions("linux-image-6.12.57+deb12-amd64\n"
                     "linux-image-6.1.0-56-amd64\n"
                     "linux-image-6.1.0-55-amd64\n"
                     "linux-image-6.12.48+deb12-amd64-dbg\n"  // not a kernel to boot
                     "linux-image-amd64\n"
                     "linux-image-6.1.0-56-cloud-amd64\n"       // another flavour
                     "linux-image-5.10.0-32-amd64\r\n"),
            (std::vector<std::string>{"5.10", "6.1", "6.12"}));
  EXPECT_TRUE(versions("").empty());
}

TEST(Kernels, AVersionPastAnIntIsLeftOutNotThrownOn) {
  // std::stoi threw std::out_of_range on such a name and ended the program.
  EXPECT_EQ(versions("linux-image-99999999999.1.0-1-amd64\n"
                     "linux-image-6.99999999999-1-amd64\n"
                     "linux-image-6.1.0-56-amd64\n"),
            (std::vector<std::string>{"6.1"}));
}

TEST(Kernels, AHugeLineIsLeftOutNotACrash) {
  // A line of a megabyte through the regex would overflow the stack.
  const std::string huge = "linux-image-6." + std::string(size_t{1} << 20, '1') + "-1-amd64\n";
  EXPECT_EQ(versions(huge + "linux-image-6.1.0-56-amd64\n"), (std::vector<std::string>{"6.1"}));
}

}  // namespace
}  // namespace mwc::softroce
