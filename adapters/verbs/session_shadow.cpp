// Trace buffers and their shadows: what each small buffer should hold, to
// check what remote accesses did to memory.
#include "adapters/verbs/session.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>

#include "adapters/verbs/session_internal.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/rules.hpp"

namespace mwc::verbs {
using namespace session_detail;
namespace {

constexpr uint64_t kShadowMax = 1u << 20;  // buffers up to this size get data checks

// Returns what a fresh buffer holds at address va.
uint8_t fill_byte(uint64_t va) { return static_cast<uint8_t>((va * 131) >> 3 ^ va); }

}  // namespace

uint8_t* Session::shadow_at(uint64_t va, uint64_t len) {
  const uint32_t h = layout::buf_of(va);
  if (h >= bufs_.size()) return nullptr;
  Buf& b = bufs_[h];
  if (!b.live || b.shadow.empty() || !rules::range_within<Concrete>(va, len, layout::buf_va(h), b.len))
    return nullptr;
  return b.shadow.data() + (va - layout::buf_va(h));
}

bool Session::data_ok() {
  bool ok = true;
  for (Buf& b : bufs_) {
    if (!b.live || b.shadow.empty() || std::memcmp(b.p, b.shadow.data(), b.len) == 0) continue;
    ok = false;
    std::memcpy(b.shadow.data(), b.p, b.len);  // report once, then go on from here
  }
  return ok;
}

Outcome Session::on_buf(const args::buf& a) {
  void* p = mmap(reinterpret_cast<void*>(layout::buf_va(a.h)), a.len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return fail_errno(errno);
  Buf& b = bufs_[a.h];
  b.live = true;
  b.p = static_cast<uint8_t*>(p);
  b.len = a.len;
  if (a.len <= kShadowMax) {
    for (uint64_t i = 0; i < a.len; ++i) b.p[i] = fill_byte(layout::buf_va(a.h) + i);
    b.shadow.assign(b.p, b.p + a.len);
  }
  return with(Result::kOK);
}

}  // namespace mwc::verbs
