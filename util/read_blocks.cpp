#include "util/read_blocks.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace mwc {

bool free_read_blocks(const std::filesystem::path& p, uint64_t& freed, uint64_t upto) {
  constexpr uint64_t kBlock = 4096;
  const uint64_t to = upto / kBlock * kBlock;
  if (to <= freed) return true;
  const int fd = ::open(p.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(freed),
                              static_cast<off_t>(to - freed)) == 0;
  ::close(fd);
  if (ok) freed = to;
  return ok;
}

}  // namespace mwc
