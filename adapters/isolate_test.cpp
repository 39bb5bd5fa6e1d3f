#include "adapters/isolate.hpp"

#include <unistd.h>

#include <csignal>

#include <gtest/gtest.h>

namespace mwc {
namespace {

Outcome ok() { return Outcome{}; }

TEST(Isolate, OutcomesComeBackInOrder) {
  std::vector<Outcome> out;
  const auto r = run_isolated(3, 5000, [](const auto& emit, std::string&) {
    for (int i = 0; i < 3; ++i) {
      Outcome o;
      o.key = static_cast<int16_t>(i);
      emit(o);
    }
    return true;
  }, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(r.note.empty());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i].key, i);
}

TEST(Isolate, ACrashEndsTheTraceAtItsOp) {
  std::vector<Outcome> out;
  const auto r = run_isolated(4, 5000, [](const auto& emit, std::string&) {
    emit(ok());
    std::fputs("provider: about to fall\n", stderr);
    std::raise(SIGSEGV);
    return true;
  }, out);
  EXPECT_EQ(out[0].ret, Result::kOK);
  EXPECT_EQ(out[1].ret, Result::kCRASH);
  EXPECT_EQ(out[2].ret, Result::kNOTRUN);
  EXPECT_EQ(out[3].ret, Result::kNOTRUN);
  // (Under ASan its handler reports the fault and exits 1 instead.)
  EXPECT_TRUE(r.note.find("SIGSEGV") != std::string::npos ||
              r.note.find("exited with status 1") != std::string::npos)
      << r.note;
  EXPECT_NE(r.note.find("about to fall"), std::string::npos) << r.note;
}

TEST(Isolate, AHangIsKilledAtTheDeadline) {
  std::vector<Outcome> out;
  const auto r = run_isolated(2, 300, [](const auto& emit, std::string&) {
    emit(ok());
    pause();  // never returns
    return true;
  }, out);
  EXPECT_EQ(out[0].ret, Result::kOK);
  EXPECT_EQ(out[1].ret, Result::kTIMEOUT);
  EXPECT_NE(r.note.find("did not finish"), std::string::npos) << r.note;
}

TEST(Isolate, SetupFailureIsNoOutcome) {
  std::vector<Outcome> out;
  const auto r = run_isolated(1, 5000, [](const auto&, std::string& err) {
    err = "no such device";
    return false;
  }, out);
  EXPECT_TRUE(r.setup_failed);
  EXPECT_NE(r.note.find("no such device"), std::string::npos);
}

}  // namespace
}  // namespace mwc
