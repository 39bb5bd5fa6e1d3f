// Messages never echo input raw: control bytes of a trace or an argument
// reach the terminal escaped (\x1b, \r), and a huge token is cut short.
#include <gtest/gtest.h>

#include "cli/test_app.hpp"
#include "util/test_files.hpp"

namespace mwc::cli {
namespace {
using test::write_temp;

// Every byte of a message is printable; lines end with \n; it is short.
void expect_printable(const Ran& r, const std::string& what) {
  EXPECT_EQ(r.status, kExitBadInput) << what;
  for (const char c : r.err)
    EXPECT_TRUE(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f))
        << what << ": byte " << static_cast<int>(static_cast<unsigned char>(c)) << " in " << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 600u) << what << ": " << r.err.substr(0, 600);
}

TEST(Echo, TraceBytesAreEscaped) {
  const Ran cr = mwcheck({"run", write_temp("echo_cr.mwt", "alloc_pd p0 => OK\r\n")});
  EXPECT_NE(cr.err.find("unknown outcome 'OK\\r'"), std::string::npos) << cr.err;
  expect_printable(cr, "CR");
  const Ran esc = mwcheck({"run", write_temp("echo_esc.mwt", std::string("frob\x1b[2J\a\0x\n", 11))});
  EXPECT_NE(esc.err.find("unknown op 'frob\\x1b[2J\\x07\\x00x'"), std::string::npos) << esc.err;
  expect_printable(esc, "ESC");
  const Ran nul = mwcheck({"run", write_temp("echo_nul.mwt", std::string("alloc_pd p0 frob=\0\x1b\n", 20))});
  expect_printable(nul, "field");
  const Ran huge = mwcheck({"run", write_temp("echo_huge.mwt", "alloc_pd p0 => " + std::string(60 << 10, 'K') + "\n")});
  EXPECT_NE(huge.err.find(std::string(80, 'K') + "...'"), std::string::npos) << huge.err.substr(0, 300);
  expect_printable(huge, "60 KiB token (a line holds at most 64 KiB)");
}

TEST(Echo, ArgumentsAreEscaped) {
  const std::string t = write_temp("echo_ok.mwt", "alloc_pd p0 => OK\n");
  const std::string huge(4 << 20, 'P');
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", "--profile", huge, t}, std::vector<std::string>{"run", "--profile", "rxe\x1b[31m", t},
        std::vector<std::string>{"run", "--profile", "rxe+remote_range=\r", t},
        std::vector<std::string>{"diff", "-a", "mutant:" + huge, "-a", "rxe", t},
        std::vector<std::string>{"diff", "-a", "bogus\a:x", "-a", "rxe", t},
        std::vector<std::string>{"run", "--frob\x1b", t}, std::vector<std::string>{"gen", "--ops", "1\x07", "-o", "-"}})
    expect_printable(mwcheck(args), args[1].substr(0, 20));
}

}  // namespace
}  // namespace mwc::cli
