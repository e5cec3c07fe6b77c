// CWSQ and CWSR: round trips and every promised refusal.
#include <capsweep/query_file.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/cli/test_files.h"

namespace {

using namespace capsweep;

using QueryFile = ScratchDir;

std::vector<SweepQuery> some_queries() {
  return {{{{1, 2, 3}, {1, 3.1f, 3}, 0.35f}, {0.1f, 0, -0.2f}}, {{{-5000, 0.5f, 7}, {-5000, 0.5f, 7}, 1e-3f}, {30, -1, 0}}};
}

void expect_error(const std::string& file, const std::string& fragment, bool results = false) {
  try {
    if (results) read_results(file); else read_queries(file);
    FAIL() << "accepted " << file;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << "message must name the file: " << e.what();
  }
}

TEST_F(QueryFile, QueriesRoundTripBitExactly) {
  const auto q = some_queries();
  write_queries(path("q.cwsq"), q);
  EXPECT_EQ(read(path("q.cwsq")).size(), kHeaderBytes + q.size() * kQueryBytes);
  const auto back = read_queries(path("q.cwsq"));
  ASSERT_EQ(back.size(), q.size());
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_EQ(std::memcmp(&back[i], &q[i], sizeof(SweepQuery)), 0);
}

TEST_F(QueryFile, HeaderIsTheDocumentedLittleEndianLayout) {
  write_queries(path("q.cwsq"), some_queries());
  const std::string bytes = read(path("q.cwsq"));
  EXPECT_EQ(bytes.substr(0, 4), "CWSQ");
  EXPECT_EQ(bytes[4], 1);
  EXPECT_EQ(bytes[8], 2);
  float radius;
  std::memcpy(&radius, bytes.data() + 16 + 6 * 4, 4);
  EXPECT_EQ(radius, 0.35f);
}

TEST_F(QueryFile, EmptyQueryFileIsValid) {
  write_queries(path("q.cwsq"), {});
  EXPECT_TRUE(read_queries(path("q.cwsq")).empty());
}

TEST_F(QueryFile, RefusesBadMagicVersionAndLength) {
  write_queries(path("q.cwsq"), some_queries());
  std::string good = read(path("q.cwsq"));
  std::string bad = good;
  bad[0] = 'X';
  expect_error(write("magic.cwsq", bad), "bad magic");
  bad = good;
  bad[4] = 2;
  expect_error(write("version.cwsq", bad), "version 2");
  expect_error(write("short.cwsq", good.substr(0, good.size() - 3)), "truncated");
  expect_error(write("long.cwsq", good + "xyz"), "bytes after the header");
  expect_error(write("tiny.cwsq", "CWS"), "too short");
  expect_error(path("missing.cwsq"), "cannot open");
}

TEST_F(QueryFile, RefusesAnOversizedCountWithoutAllocatingIt) {
  write_queries(path("q.cwsq"), some_queries());
  std::string bytes = read(path("q.cwsq"));
  const std::uint64_t huge = 1ull << 60;
  std::memcpy(bytes.data() + 8, &huge, 8);
  expect_error(write("huge.cwsq", bytes), "truncated");
}

TEST_F(QueryFile, RefusesBadQueriesNamingTheirIndex) {
  auto q = some_queries();
  q.push_back(q[0]);
  q[2].capsule.a.x = std::numeric_limits<float>::quiet_NaN();
  write_queries(path("nan.cwsq"), q);
  expect_error(path("nan.cwsq"), "query 2: capsule has a NaN");
  q[2] = q[0];
  q[1].capsule.radius = -1;
  write_queries(path("neg.cwsq"), q);
  expect_error(path("neg.cwsq"), "query 1: capsule radius must be positive");
  q[1] = q[0];
  q[2].motion.z = std::numeric_limits<float>::infinity();
  write_queries(path("inf.cwsq"), q);
  expect_error(path("inf.cwsq"), "query 2: motion has a NaN or infinite");
}

TEST_F(QueryFile, ResultsRoundTripAndUseTheDocumentedCodes) {
  SweepHit miss, moving, start;
  moving.hit = true;
  moving.t = 0.25f;
  moving.feature = Feature::edge;
  moving.normal = {0, 1, 0};
  moving.point = {1, 2, 3};
  moving.triangle = 42;
  start = moving;
  start.t = 0;
  start.depth = 0.125f;
  start.feature = Feature::face;
  write_results(path("r.cwsr"), {miss, moving, start});
  const std::string bytes = read(path("r.cwsr"));
  ASSERT_EQ(bytes.size(), kHeaderBytes + 3 * kResultBytes);
  EXPECT_EQ(bytes.substr(0, 4), "CWSR");
  EXPECT_EQ(bytes[16 + 0], 0);
  EXPECT_EQ(bytes[16 + 40], 1);
  EXPECT_EQ(bytes[16 + 41], 2);  // feature edge
  EXPECT_EQ(bytes[16 + 80], 2);  // started in contact
  std::uint32_t tri;
  std::memcpy(&tri, bytes.data() + 16 + 36, 4);
  EXPECT_EQ(tri, kNoTriangle);
  float t;
  std::memcpy(&t, bytes.data() + 16 + 4, 4);
  EXPECT_EQ(t, 1.f);
  const auto back = read_results(path("r.cwsr"));
  ASSERT_EQ(back.size(), 3u);
  EXPECT_FALSE(back[0].hit);
  EXPECT_TRUE(identical(back[1], moving));
  EXPECT_TRUE(identical(back[2], start));
}

TEST_F(QueryFile, RefusesInconsistentResults) {
  SweepHit moving;
  moving.hit = true;
  moving.t = 0.5f;
  write_results(path("r.cwsr"), {moving});
  std::string bytes = read(path("r.cwsr"));
  bytes[16] = 2;  // code 2 with t = 0.5
  expect_error(write("bad.cwsr", bytes), "result 0: hit code 2", true);
  bytes[16] = 7;
  expect_error(write("bad2.cwsr", bytes), "result 0: hit code must be", true);
}

}  // namespace
