#include "adapters/verbs/book.hpp"

#include <gtest/gtest.h>

#include "adapters/verbs/book_mirror.hpp"
#include "refmodel/layout.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::verbs {
namespace {

constexpr std::string_view kSetup = R"(buf b0 len=8192
alloc_pd p0
create_qp q0 pd=p0
)";

Arg at(AddrBase b, uint32_t h, uint64_t off) { return Arg{off, h, static_cast<uint8_t>(b)}; }

// A model (profile verbs) and a Book driven by the same trace.
struct Both {
  Model model{profile(ProfileId::verbs)};
  Book book;
  std::vector<Outcome> outcomes;
  std::vector<int16_t> book_keys;

  explicit Both(std::string_view ops) {
    auto r = parse_text(std::string(kSetup) + std::string(ops));
    const Trace* t = std::get_if<Trace>(&r);
    if (!t) {
      ADD_FAILURE() << std::get<ParseError>(r).message;
      return;
    }
    model.reset(t->caps);
    book.begin(t->caps);
    for (const Op& op : t->ops) {
      int16_t k = kNoKey;
      outcomes.push_back(mirror_step(model, book, op, k));
      book_keys.push_back(k);
    }
  }
  // Returns the model's iova of MR h (0 when its key names nothing live).
  uint64_t model_iova(uint32_t h) const {
    return model.key_target(model.rkey_of(Arg{0, h, uint8_t(RkeyBase::Mr)})).mr_iova;
  }
};

TEST(Book, ReregThatDropsZeroBasedMovesTheIovaBackToTheAddress) {
  const Both b(
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_WRITE|ZERO_BASED\n"
      "rereg_mr m0 flags=CHANGE_ACCESS access=LOCAL_WRITE|REMOTE_WRITE\n");
  ASSERT_EQ(b.outcomes.back().ret, Result::kOK);
  EXPECT_EQ(b.model_iova(0), layout::buf_va(0));
  EXPECT_EQ(b.book.mr(0).iova, b.model_iova(0));
  EXPECT_EQ(b.book.resolve(at(AddrBase::Mr, 0, 16)), b.model.addr_of(at(AddrBase::Mr, 0, 16)));
}

TEST(Book, ReregThatSetsZeroBasedMovesTheIovaToZero) {
  const Both b(
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_WRITE\n"
      "rereg_mr m0 flags=CHANGE_ACCESS access=LOCAL_WRITE|REMOTE_WRITE|ZERO_BASED\n"
      "rereg_mr m0 flags=CHANGE_TRANSLATION addr=b0+4096 len=64\n");
  EXPECT_EQ(b.model_iova(0), 0u);  // still zero-based at its new place
  EXPECT_EQ(b.book.mr(0).iova, 0u);
  EXPECT_EQ(b.book.mr(0).va, layout::buf_va(0) + 4096);
  EXPECT_EQ(b.book.target_of(b.book.mr(0).rkey, 16), layout::buf_va(0) + 4096 + 16);
}

TEST(Book, AWindowOverAZeroBasedMrLandsInItsBuffer) {
  const Both b(
      "reg_mr m0 pd=p0 addr=b0+1024 len=4096 access=LOCAL_WRITE|REMOTE_WRITE|MW_BIND|ZERO_BASED\n"
      "alloc_mw w0 pd=p0 type=2\n"
      "wr_bind_mw q0 w0 mr=m0 addr=m0+256 len=64 access=REMOTE_WRITE\n");
  ASSERT_EQ(b.outcomes.back().rule, Rule::bind_ok);
  const Book::Mw& w = b.book.mw(0);
  EXPECT_EQ(w.addr, 256u);  // in the MR's address space, which starts at 0
  EXPECT_EQ(b.book.target_of(w.cur, 256 + 8), layout::buf_va(0) + 1024 + 256 + 8);
}

TEST(Book, UnboundWindowsResolveAsTheModelsDo) {
  const Both b(
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_WRITE|MW_BIND\n"
      "alloc_mw w0 pd=p0 type=2\n"
      "wr_bind_mw q0 w0 mr=m0 addr=b0+512 len=64 access=REMOTE_WRITE\n"
      "wr_bind_mw q0 w0\n"  // zero length: unbinds
      "wr_bind_mw q0 w0 mr=m0 addr=b0+1024 len=64 access=REMOTE_WRITE\n"
      "wr_local_inv q0 rkey=w0\n");
  ASSERT_EQ(b.outcomes[b.outcomes.size() - 3].rule, Rule::bind_zero_length);
  ASSERT_EQ(b.outcomes.back().rule, Rule::inv_ok);
  EXPECT_FALSE(b.book.mw(0).bound);
  EXPECT_EQ(b.book.resolve(at(AddrBase::Mw, 0, 8)), b.model.addr_of(at(AddrBase::Mw, 0, 8)));
}

TEST(Book, AbsoluteKeysOfAReusedWindowCountFromItsAllocation) {
  const Both b(
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_WRITE|MW_BIND\n"
      "alloc_mw w0 pd=p0 type=2\n"
      "wr_bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_WRITE key=0x10\n"
      "wr_local_inv q0 rkey=w0\n"
      "dealloc_mw w0\n"
      "alloc_mw w0 pd=p0 type=2\n"  // the model's new key byte continues after 0x10
      "wr_bind_mw q0 w0 mr=m0 addr=b0 len=64 access=REMOTE_WRITE key=0x10\n");
  ASSERT_EQ(b.outcomes.back().rule, Rule::bind_ok);
  EXPECT_EQ(b.outcomes.back().key, 0x10);
  EXPECT_EQ(b.book_keys.back(), b.outcomes.back().key);
}

TEST(Book, AnMrKeepsItsRkeyAfterDeregistration) {
  const Both b(
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_WRITE|REMOTE_WRITE\n"
      "dereg_mr m0\n");
  const Arg m0{0, 0, uint8_t(RkeyBase::Mr)};
  EXPECT_FALSE(b.book.mr(0).live);
  EXPECT_EQ(b.book.resolve_rkey(m0), b.model.rkey_of(m0));
}

}  // namespace
}  // namespace mwc::verbs
