// Test helpers: corpus traces by name, and backends by spec.
#pragma once
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "adapters/backend.hpp"
#include "findings/device_run.hpp"
#include "refmodel/text_codec.hpp"

namespace mwc::findings::testing {

inline std::vector<CorpusTrace> corpus(std::initializer_list<const char*> names) {
  std::vector<CorpusTrace> c;
  for (const char* n : names) {
    std::ifstream in(std::string(std::getenv("MWCHECK_SOURCE_DIR")) + "/corpus/conformance/" + n);
    std::stringstream ss;
    ss << in.rdbuf();
    auto t = parse_text(ss.str());
    EXPECT_TRUE(std::holds_alternative<Trace>(t)) << n;
    c.push_back({n, std::get<Trace>(t)});
  }
  return c;
}

// A type 2 window invalidated, then read through its old key: a device
// that leaves the key valid grants what it must refuse.
inline std::vector<CorpusTrace> stale_key_trace() {
  auto t = parse_text(
      "buf b0 len=4096\nalloc_pd p0\n"
      "reg_mr m0 pd=p0 addr=b0 len=4096 access=LOCAL_READ|LOCAL_WRITE|REMOTE_READ|MW_BIND\n"
      "alloc_mw w0 pd=p0 type=2\ncreate_qp q0 pd=p0\n"
      "wr_bind_mw q0 w0 mr=m0 addr=b0 len=512 access=REMOTE_READ\npoll_cq q0\n"
      "peer_read q0 rkey=w0 addr=w0 len=8\nwr_local_inv q0 rkey=w0\npoll_cq q0\n"
      "peer_read q0 rkey=w0 addr=w0 len=8\n");
  EXPECT_TRUE(std::holds_alternative<Trace>(t));
  return {{"stale_key.mwt", std::get<Trace>(t)}};
}

inline std::unique_ptr<Backend> backend(const char* spec) {
  std::string err;
  auto b = make_backend(spec, err);
  EXPECT_TRUE(b) << err;
  return b;
}

}  // namespace mwc::findings::testing
