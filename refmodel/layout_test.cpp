#include "refmodel/layout.hpp"

#include <gtest/gtest.h>

namespace mwc::layout {
namespace {

Arg key(KeyBase b, uint64_t v) { return Arg{v, kNoHandle, static_cast<uint8_t>(b)}; }

TEST(Layout, KeyByteUnderTheIndex) {
  const uint32_t rkey = 0x123456fe;
  EXPECT_EQ(key_byte(rkey), 0xfeu);
  EXPECT_EQ(index_bits(rkey), 0x12345600u);
  EXPECT_EQ(rkey_index(rkey), 0x123456u);
  EXPECT_EQ(with_key_byte(rkey, 0x07), 0x12345607u);
  EXPECT_EQ(with_key_byte(rkey, 0x1ff), 0x123456ffu);  // only the key's low byte
  EXPECT_EQ(make_rkey(0x123456, 0xfe), rkey);
  EXPECT_TRUE(same_index(rkey, 0x12345600));
  EXPECT_FALSE(same_index(rkey, 0x123457fe));
}

TEST(Layout, WorkRequestKeyBytes) {
  const uint32_t rkey = 0x123456fe;
  EXPECT_EQ(wr_key_byte(key(KeyBase::Rel, 1), rkey, 0x10), 0xff);
  EXPECT_EQ(wr_key_byte(key(KeyBase::Rel, 3), rkey, 0x10), 0x01);  // wraps
  EXPECT_EQ(wr_key_byte(key(KeyBase::Abs, 0xfe), rkey, 0x10), 0x0e);
  EXPECT_EQ(key_moved(0x12345601, 0xff), 2);
  EXPECT_EQ(key_moved(0x12345610, 0x10), 0);
}

TEST(Layout, ModelIndexSpacesDoNotMeet) {
  EXPECT_EQ(mr_rkey(0, 5), 0x105u);  // MR 0 has index 1: index 0 names nothing
  EXPECT_EQ(mw_rkey(3, 0), 0x80000300u);
  const KeyObject mr = key_object(mr_rkey(7, 0x42));
  EXPECT_FALSE(mr.window);
  EXPECT_EQ(mr.h, 7u);
  const KeyObject mw = key_object(mw_rkey(7, 0x42));
  EXPECT_TRUE(mw.window);
  EXPECT_EQ(mw.h, 7u);
  EXPECT_EQ(key_object(0x000000ab).h, kNoHandle);
  // The largest handles of each kind (field.hpp's caps) keep their spaces apart.
  EXPECT_FALSE(key_object(mr_rkey(kMaxCap[2] - 1, 0)).window);
  EXPECT_EQ(key_object(mw_rkey(kMaxCap[3] - 1, 0)).h, kMaxCap[3] - 1);
}

TEST(Layout, BuffersHaveSlotsOfTheirOwn) {
  EXPECT_EQ(buf_va(0), kBufBase);
  EXPECT_EQ(buf_va(2) - buf_va(1), uint64_t{1} << 32);
  EXPECT_EQ(buf_of(buf_va(5) + 123), 5u);
  EXPECT_EQ(buf_of(buf_va(6) - 1), 5u);
  EXPECT_EQ(buf_of(kBufBase - 1), kNoHandle);
}

TEST(Layout, ZeroBasedMrsStartAtZero) {
  EXPECT_EQ(mr_iova(acc::REMOTE_READ, 0x5000), 0x5000u);
  EXPECT_EQ(mr_iova(acc::REMOTE_READ | acc::ZERO_BASED, 0x5000), 0u);
}

TEST(Layout, ReregKeepsWhatItDoesNotChange) {
  const uint32_t zb = acc::ZERO_BASED | acc::REMOTE_READ, plain = acc::REMOTE_READ;
  // CHANGE_ACCESS toggles ZERO_BASED: the iova moves to 0, or back to the address.
  EXPECT_EQ(iova_after_rereg(rereg::CHANGE_ACCESS, zb, 0x5000, plain, 0x9000), 0x5000u);
  EXPECT_EQ(iova_after_rereg(rereg::CHANGE_ACCESS, plain, 0x5000, zb, 0x9000), 0u);
  // CHANGE_TRANSLATION alone: a zero-based MR stays zero-based; another follows.
  EXPECT_EQ(iova_after_rereg(rereg::CHANGE_TRANSLATION, zb, 0x5000, plain, 0x9000), 0u);
  EXPECT_EQ(iova_after_rereg(rereg::CHANGE_TRANSLATION, plain, 0x5000, zb, 0x9000), 0x9000u);
  EXPECT_EQ(iova_after_rereg(rereg::CHANGE_TRANSLATION | rereg::CHANGE_ACCESS, zb, 0x5000,
                             plain, 0x9000),
            0x9000u);
  // CHANGE_PD alone changes nothing of the address space.
  EXPECT_EQ(iova_after_rereg(rereg::CHANGE_PD, plain, 0x5000, zb, 0x9000), 0x5000u);
}

TEST(Layout, AddressesThroughWindowsAndMrs) {
  EXPECT_EQ(window_base(true, 0x5100), 0u);
  EXPECT_EQ(window_base(false, 0x5100), 0x5100u);
  EXPECT_EQ(mr_local(0x10, 0, 0x5000), 0x5010u);        // zero-based MR
  EXPECT_EQ(mr_local(0x5010, 0x5000, 0x5000), 0x5010u);  // at its address
  EXPECT_EQ(mr_local(0x9010, 0x9000, 0x5000), 0x5010u);  // at another iova
}

}  // namespace
}  // namespace mwc::layout
