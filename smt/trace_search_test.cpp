#include "smt/trace_search.hpp"

#include <gtest/gtest.h>

#include "compare/run.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::smt {
namespace {

TEST(TraceSearch, EveryInvariantHoldsUnderTheNormativeProfilesUpToFourVerbs) {
  for (ProfileId id : {ProfileId::ibta, ProfileId::verbs}) {
    const auto r = search_traces(profile(id), ProfileId::ibta, 4, Scope{});
    for (int i = 0; i < kInvariantCount; ++i)
      EXPECT_FALSE(r.cex[i]) << profile(id).name << " " << invariant_desc(Invariant(i)).name << ": "
                             << r.cex[i]->what << "\n" << print_text(r.cex[i]->trace);
    EXPECT_GT(r.stats.states, 1000u);
    EXPECT_EQ(r.stats.depth, 4);
  }
}

// rxe checks a remote access through a window against the MR only: the
// attack is a read past the window, inside its MR, in at most 6 verbs.
TEST(TraceSearch, RxeReadsPastTheWindowInSixVerbs) {
  const Profile rxe = profile(ProfileId::rxe);
  const auto r = search_traces(rxe, ProfileId::ibta, 6, Scope{});
  const auto& c = r.cex[static_cast<int>(Invariant::grant_inside)];
  ASSERT_TRUE(c);
  EXPECT_LE(c->verbs, 6u);
  EXPECT_EQ(c->verbs, c->trace.ops.size() - 1);  // b0 is no verb; an access needs no poll
  // The last op is granted under rxe, refused under the yardstick, and the
  // expectations say both.
  const auto mine = run_model(c->trace, rxe), ibta = run_model(c->trace, profile(ProfileId::ibta));
  EXPECT_EQ(mine.back().wc, WcStatus::kIBV_WC_SUCCESS);
  EXPECT_EQ(ibta.back().wc, WcStatus::kIBV_WC_REM_ACCESS_ERR);
  const std::string text = print_text(c->trace);
  EXPECT_NE(text.find("=> IBV_WC_REM_ACCESS_ERR; rxe: IBV_WC_SUCCESS"), std::string::npos) << text;
  // The same trace read back is the same trace: it can leave the tool.
  const auto back = parse_text(text);
  ASSERT_TRUE(std::holds_alternative<Trace>(back));
  EXPECT_EQ(std::get<Trace>(back), c->trace);
}

TEST(TraceSearch, TheSameSearchGivesTheSameBytes) {
  const Profile rxe = profile(ProfileId::rxe);
  const auto a = search_traces(rxe, ProfileId::ibta, 5, Scope{}), b = search_traces(rxe, ProfileId::ibta, 5, Scope{});
  for (int i = 0; i < kInvariantCount; ++i) {
    ASSERT_EQ(bool(a.cex[i]), bool(b.cex[i]));
    if (a.cex[i]) {
      EXPECT_EQ(print_text(a.cex[i]->trace), print_text(b.cex[i]->trace));
    }
  }
  EXPECT_EQ(a.stats.states, b.stats.states);
}

TEST(TraceSearch, ScopesParseAndSayWhatIsWrong) {
  Scope s;
  EXPECT_EQ(parse_scope("pd=1,qp=3", s), "");
  EXPECT_EQ(scope_text(s), "pd=1,mr=2,mw=2,qp=3");
  EXPECT_NE(parse_scope("pd=9", s), "");
  EXPECT_NE(parse_scope("cq=1", s), "");
  EXPECT_NE(parse_scope("pd", s), "");
  EXPECT_NE(parse_scope("pd=1x", s), "");
}

}  // namespace
}  // namespace mwc::smt
