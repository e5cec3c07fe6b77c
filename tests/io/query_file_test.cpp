// CWSQ and CWSR: round trips and every promised refusal.
#include <capsweep/files.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/support/test_files.h"
#include "io/query_format.h"

namespace {

using namespace capsweep;

using QueryFile = ScratchDir;

std::vector<SweepQuery> some_queries() {
  return {{{{1, 2, 3}, {1, 3.1f, 3}, 0.35f}, {0.1f, 0, -0.2f}}, {{{-5000, 0.5f, 7}, {-5000, 0.5f, 7}, 1e-3f}, {30, -1, 0}}};
}

void expect_ellipsoid_error(const std::string& file, const std::string& fragment) {
  try {
    read_ellipsoid_queries(file);
    FAIL() << "accepted " << file;
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << "message must name the file: " << e.what();
  }
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
  bad[4] = 3;  // version 3 holds ellipsoids: read_queries does not take it, and says what it holds
  expect_error(write("version.cwsq", bad), "version 3 is not supported (expected 1, 2, 4, 5, 7 or 8)");
  bad[4] = 9;
  expect_error(write("version9.cwsq", bad), "version 9 is not supported (expected 1, 2, 4, 5, 7 or 8)");
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

namespace {

std::vector<ClaimedMove> some_moves() {
  return {{{{1, 2, 3}, {1, 3.1f, 3}, 0.35f}, {0.1f, -0.2f, 0}, 1 / 60.f, -3.5f, false},
          {{{-5000, 0.5f, 7}, {-5000, 0.5f, 7}, 1e-3f}, {30, -1, 0}, 0.1f, 0, true}};
}

std::string write_moves(const std::string& file, const std::vector<ClaimedMove>& moves) {
  QueryWriter w(file, {}, QueryRecords::claimed_moves);
  for (const ClaimedMove& m : moves) w.add(m);
  w.finish();
  return file;
}

}  // namespace

TEST_F(QueryFile, ClaimedMovesRoundTripAsVersionTwo) {
  const auto moves = some_moves();
  const std::string file = write_moves(path("m.cwsq"), moves);
  const std::string bytes = read(file);
  ASSERT_EQ(bytes.size(), kHeaderBytes + moves.size() * kClaimedMoveBytes);
  std::uint32_t version;
  std::memcpy(&version, bytes.data() + 4, 4);
  EXPECT_EQ(version, 2u);
  EXPECT_EQ(query_file_version(file), 2u);
  // The documented layout: the version 1 record, then dt, vertical speed, grounded, 3 zero bytes.
  float f[12];
  std::memcpy(f, bytes.data() + kHeaderBytes + kClaimedMoveBytes, sizeof f);
  EXPECT_EQ(f[0], -5000.f);
  EXPECT_EQ(f[7], 30.f);
  EXPECT_EQ(f[10], 0.1f);
  EXPECT_EQ(f[11], 0.f);
  EXPECT_EQ(bytes[kHeaderBytes + kClaimedMoveBytes + 48], 1);
  EXPECT_EQ(bytes.substr(kHeaderBytes + kClaimedMoveBytes + 49, 3), std::string(3, '\0'));
  const auto back = read_claimed_moves(file, 7.f);  // a version 2 file's own dt wins
  ASSERT_EQ(back.size(), moves.size());
  for (std::size_t i = 0; i < moves.size(); ++i) {
    EXPECT_EQ(std::memcmp(&back[i].from, &moves[i].from, sizeof(Capsule)), 0);
    EXPECT_EQ(back[i].motion, moves[i].motion);
    EXPECT_EQ(back[i].dt, moves[i].dt);
    EXPECT_EQ(back[i].vertical_speed, moves[i].vertical_speed);
    EXPECT_EQ(back[i].grounded, moves[i].grounded);
  }
  // Every sweep tool reads the same file as the sweeps it holds.
  const auto queries = read_queries(file);
  ASSERT_EQ(queries.size(), moves.size());
  EXPECT_EQ(queries[1].motion, moves[1].motion);
}

TEST_F(QueryFile, VersionOneFilesAreClaimedMovesOfUnknownState) {
  write_queries(path("q.cwsq"), some_queries());
  EXPECT_EQ(query_file_version(path("q.cwsq")), 1u);
  EXPECT_EQ(query_file_version(path("none.cwsq")), 0u);
  const auto moves = read_claimed_moves(path("q.cwsq"), 0.25f);
  ASSERT_EQ(moves.size(), 2u);
  for (const ClaimedMove& m : moves) {
    EXPECT_EQ(m.dt, 0.25f);
    EXPECT_EQ(m.vertical_speed, 0.f);
    EXPECT_FALSE(m.grounded);
  }
}

TEST_F(QueryFile, RefusesBadClaimedMoveStateNamingTheMove) {
  const std::string good = read(write_moves(path("m.cwsq"), some_moves()));
  const std::size_t second = kHeaderBytes + kClaimedMoveBytes;
  const auto corrupt = [&](const char* name, std::size_t at, const void* value, std::size_t n) {
    std::string bad = good;
    std::memcpy(bad.data() + at, value, n);
    return write(name, bad);
  };
  const float nan = std::numeric_limits<float>::quiet_NaN(), negative = -1.f, huge = 1e7f;
  const std::uint8_t two = 2, one = 1;
  const auto expect_move_error = [&](const std::string& file, const std::string& fragment) {
    try {
      read_claimed_moves(file);
      FAIL() << "accepted " << file;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(file + ": move 1: " + fragment), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_queries(file), FormatError);  // the sweep tools refuse it too
  };
  expect_move_error(corrupt("dt_nan.cwsq", second + 40, &nan, 4), "dt must be within");
  expect_move_error(corrupt("dt_negative.cwsq", second + 40, &negative, 4), "dt must be within");
  expect_move_error(corrupt("speed_nan.cwsq", second + 44, &nan, 4), "vertical speed must be finite");
  expect_move_error(corrupt("speed_huge.cwsq", second + 44, &huge, 4), "vertical speed must be finite");
  expect_move_error(corrupt("grounded.cwsq", second + 48, &two, 1), "grounded must be 0 or 1");
  expect_move_error(corrupt("reserved.cwsq", second + 50, &one, 1), "reserved bytes must be 0");
  expect_move_error(corrupt("capsule.cwsq", second + 24, &negative, 4), "capsule radius must be positive");
  // A version 2 body cut short is truncated, as for version 1.
  expect_error(write("short2.cwsq", good.substr(0, good.size() - 10)), "truncated");
}

TEST_F(QueryFile, AWriterTakesOnlyItsOwnKindOfRecord) {
  QueryWriter sweeps(path("s.cwsq"));
  EXPECT_THROW(sweeps.add(some_moves()[0]), std::logic_error);
  QueryWriter moves(path("m.cwsq"), {}, QueryRecords::claimed_moves);
  EXPECT_THROW(moves.add(some_queries()[0]), std::logic_error);
}

TEST_F(QueryFile, EllipsoidQueriesRoundTripAsVersionThree) {
  const std::vector<SweepEllipsoidQuery> q = {{{{1, 2, 3}, {0.35f, 0.9f, 0.35f}}, {0.5f, 0, -0.25f}},
                                              {{{-4, 0.5f, 1e5f}, {1e-3f, 2, 7}}, {0, -30, 0}}};
  write_ellipsoid_queries(path("e.cwsq"), q);
  const std::string bytes = read(path("e.cwsq"));
  EXPECT_EQ(bytes.size(), kHeaderBytes + 2 * kEllipsoidQueryBytes);
  EXPECT_EQ(bytes[4], 3);
  EXPECT_EQ(query_file_version(path("e.cwsq")), kEllipsoidVersion);
  const std::vector<SweepEllipsoidQuery> back = read_ellipsoid_queries(path("e.cwsq"));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(std::memcmp(back.data(), q.data(), sizeof(SweepEllipsoidQuery) * 2), 0);
  // Each reader names what a file of the other kind holds.
  expect_error(path("e.cwsq"), "it holds ellipsoid sweeps");
  write_queries(path("q.cwsq"), some_queries());
  expect_ellipsoid_error(path("q.cwsq"), "version 1 is not supported (expected 3 or 6): it holds capsule sweeps");
}

TEST_F(QueryFile, RefusesBadEllipsoidsNamingTheirIndex) {
  std::vector<SweepEllipsoidQuery> q(3, SweepEllipsoidQuery{{{0, 1, 0}, {0.3f, 0.9f, 0.3f}}, {1, 0, 0}});
  q[2].ellipsoid.radii.y = 0;
  write_ellipsoid_queries(path("e.cwsq"), q);
  expect_ellipsoid_error(path("e.cwsq"), "ellipsoid 2: every radius must be positive");
  q[2].ellipsoid.radii.y = 1;
  q[1].motion.z = std::numeric_limits<float>::quiet_NaN();
  write_ellipsoid_queries(path("e.cwsq"), q);
  expect_ellipsoid_error(path("e.cwsq"), "ellipsoid 1: motion has a NaN");
  const std::string bytes = read(path("e.cwsq"));
  expect_ellipsoid_error(write("cut.cwsq", bytes.substr(0, bytes.size() - 5)), "truncated");
}

// Versions 4, 5 and 6: the records of versions 1, 2 and 3 followed by a u32 layer mask. Writers
// choose them only when a mask is not every layer; readers keep the masks and refuse 0.
TEST_F(QueryFile, MaskedQueriesRoundTripAsVersionFour) {
  std::vector<SweepQuery> q = some_queries();
  write_queries(path("all.cwsq"), q);  // every layer: still version 1, byte for byte
  EXPECT_EQ(query_file_version(path("all.cwsq")), kFormatVersion);
  EXPECT_EQ(read(path("all.cwsq")).size(), kHeaderBytes + q.size() * kQueryBytes);
  q[0].layers = 5u;
  write_queries(path("q.cwsq"), q);
  const std::string bytes = read(path("q.cwsq"));
  EXPECT_EQ(query_file_version(path("q.cwsq")), kMaskedQueryVersion);
  ASSERT_EQ(bytes.size(), kHeaderBytes + q.size() * kMaskedQueryBytes);
  std::uint32_t mask[2];
  std::memcpy(&mask[0], bytes.data() + kHeaderBytes + 40, 4);
  std::memcpy(&mask[1], bytes.data() + kHeaderBytes + kMaskedQueryBytes + 40, 4);
  EXPECT_EQ(mask[0], 5u);
  EXPECT_EQ(mask[1], kAllLayers);
  // The first 40 bytes of each record are the version 1 record.
  const std::string plain = read(path("all.cwsq"));
  EXPECT_EQ(bytes.substr(kHeaderBytes + kMaskedQueryBytes, kQueryBytes), plain.substr(kHeaderBytes + kQueryBytes, kQueryBytes));
  const auto back = read_queries(path("q.cwsq"));
  ASSERT_EQ(back.size(), q.size());
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_EQ(std::memcmp(&back[i], &q[i], sizeof(SweepQuery)), 0) << i;
  // As claimed moves: the masks ride along, over the dt given, from an unknown state.
  const auto moves = read_claimed_moves(path("q.cwsq"), 0.5f);
  EXPECT_EQ(moves[0].layers, 5u);
  EXPECT_EQ(moves[1].layers, kAllLayers);
  EXPECT_EQ(moves[0].dt, 0.5f);
  // A mask of 0 sees nothing: refused, naming the file and the query.
  std::string bad = bytes;
  std::memset(bad.data() + kHeaderBytes + kMaskedQueryBytes + 40, 0, 4);
  expect_error(write("zero.cwsq", bad), "query 1: its layer mask is 0");
  expect_ellipsoid_error(path("q.cwsq"), "version 4 is not supported (expected 3 or 6): it holds capsule sweeps");
  expect_error(write("short4.cwsq", bytes.substr(0, bytes.size() - 4)), "truncated");
}

TEST_F(QueryFile, MaskedClaimedMovesRoundTripAsVersionFive) {
  std::vector<ClaimedMove> moves = some_moves();
  moves[1].layers = 0x80000001u;
  QueryWriter w(path("m.cwsq"), {}, QueryRecords::masked_claimed_moves);
  for (const ClaimedMove& m : moves) w.add(m);
  w.finish();
  const std::string bytes = read(path("m.cwsq"));
  EXPECT_EQ(query_file_version(path("m.cwsq")), kMaskedClaimedMoveVersion);
  ASSERT_EQ(bytes.size(), kHeaderBytes + moves.size() * kMaskedClaimedMoveBytes);
  // A version 2 record, then the mask.
  const std::string v2 = read(write_moves(path("v2.cwsq"), some_moves()));
  EXPECT_EQ(bytes.substr(kHeaderBytes + kMaskedClaimedMoveBytes, kClaimedMoveBytes),
            v2.substr(kHeaderBytes + kClaimedMoveBytes, kClaimedMoveBytes));
  std::uint32_t mask;
  std::memcpy(&mask, bytes.data() + kHeaderBytes + kMaskedClaimedMoveBytes + 52, 4);
  EXPECT_EQ(mask, 0x80000001u);
  const auto back = read_claimed_moves(path("m.cwsq"), 7.f);
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    EXPECT_EQ(std::memcmp(&back[i].from, &moves[i].from, sizeof(Capsule)), 0);
    EXPECT_EQ(back[i].dt, moves[i].dt);
    EXPECT_EQ(back[i].vertical_speed, moves[i].vertical_speed);
    EXPECT_EQ(back[i].grounded, moves[i].grounded);
    EXPECT_EQ(back[i].layers, moves[i].layers);
  }
  EXPECT_EQ(read_queries(path("m.cwsq"))[1].layers, 0x80000001u);
  std::string bad = bytes;
  std::memset(bad.data() + kHeaderBytes + kMaskedClaimedMoveBytes + 52, 0, 4);
  try {
    read_claimed_moves(write("zero.cwsq", bad));
    FAIL() << "accepted a mask of 0";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(path("zero.cwsq") + ": move 1: its layer mask is 0"), std::string::npos)
        << e.what();
  }
  bad = bytes;
  bad[kHeaderBytes + 49] = 1;  // the reserved bytes stay reserved
  EXPECT_THROW(read_claimed_moves(write("reserved.cwsq", bad)), FormatError);
}

TEST_F(QueryFile, AWriterRefusesMasksItsVersionCannotCarry) {
  std::vector<ClaimedMove> moves = some_moves();
  moves[0].layers = 2u;
  QueryWriter plain(path("p.cwsq"), {}, QueryRecords::claimed_moves);
  EXPECT_THROW(plain.add(moves[0]), std::invalid_argument);  // would lose the mask
  moves[0].layers = 0u;
  QueryWriter masked(path("m.cwsq"), {}, QueryRecords::masked_claimed_moves);
  EXPECT_THROW(masked.add(moves[0]), std::invalid_argument);  // no reader would take it back
  QueryWriter sweeps(path("s.cwsq"), {}, QueryRecords::masked_sweeps);
  EXPECT_THROW(sweeps.add(moves[1]), std::logic_error);
  std::vector<SweepQuery> q = some_queries();
  q[1].layers = 0;
  EXPECT_THROW(write_queries(path("zero.cwsq"), q), FormatError);
  EXPECT_FALSE(std::filesystem::exists(path("zero.cwsq")));
}

TEST_F(QueryFile, MaskedEllipsoidsRoundTripAsVersionSix) {
  std::vector<SweepEllipsoidQuery> q = {{{{1, 2, 3}, {0.35f, 0.9f, 0.35f}}, {0.5f, 0, -0.25f}, 3u},
                                        {{{-4, 0.5f, 1e5f}, {1e-3f, 2, 7}}, {0, -30, 0}}};
  write_ellipsoid_queries(path("e.cwsq"), q);
  const std::string bytes = read(path("e.cwsq"));
  EXPECT_EQ(query_file_version(path("e.cwsq")), kMaskedEllipsoidVersion);
  ASSERT_EQ(bytes.size(), kHeaderBytes + 2 * kMaskedEllipsoidQueryBytes);
  std::uint32_t mask;
  std::memcpy(&mask, bytes.data() + kHeaderBytes + 36, 4);
  EXPECT_EQ(mask, 3u);
  const auto back = read_ellipsoid_queries(path("e.cwsq"));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(std::memcmp(back.data(), q.data(), sizeof(SweepEllipsoidQuery) * 2), 0);
  expect_error(path("e.cwsq"), "version 6 is not supported (expected 1, 2, 4, 5, 7 or 8): it holds ellipsoid sweeps");
  std::string bad = bytes;
  std::memset(bad.data() + kHeaderBytes + kMaskedEllipsoidQueryBytes + 36, 0, 4);
  expect_ellipsoid_error(write("zero.cwsq", bad), "ellipsoid 1: its layer mask is 0");
  q[1].layers = kAllLayers;
  q[0].layers = kAllLayers;
  write_ellipsoid_queries(path("plain.cwsq"), q);
  EXPECT_EQ(query_file_version(path("plain.cwsq")), kEllipsoidVersion);
}

// Version 7: claimed moves of capsule and ellipsoid agents (cs_claimed_move): a version 5 record
// whose byte 49 is the shape, then the ellipsoid.
TEST_F(QueryFile, ClaimedMovesOfEitherShapeRoundTripAsVersionSeven) {
  std::vector<ClaimedMove> moves = some_moves();
  ClaimedMove e = moves[0];
  e.shape = AgentShape::ellipsoid;
  e.ellipsoid = {{1, 0.92f, 3}, {0.35f, 0.9f, 0.35f}};
  e.from = {};
  e.layers = 6u;
  moves.push_back(e);
  QueryWriter w(path("m.cwsq"), {}, QueryRecords::shaped_claimed_moves);
  for (const ClaimedMove& m : moves) w.add(m);
  w.finish();
  const std::string bytes = read(path("m.cwsq"));
  EXPECT_EQ(query_file_version(path("m.cwsq")), kShapedClaimedMoveVersion);
  ASSERT_EQ(bytes.size(), kHeaderBytes + 3 * kShapedClaimedMoveBytes);
  // A capsule's record is the version 5 record, then 24 zero bytes.
  QueryWriter v5(path("v5.cwsq"), {}, QueryRecords::masked_claimed_moves);
  v5.add(moves[1]);
  v5.finish();
  const std::string five = read(path("v5.cwsq"));
  EXPECT_EQ(bytes.substr(kHeaderBytes + kShapedClaimedMoveBytes, kMaskedClaimedMoveBytes), five.substr(kHeaderBytes));
  EXPECT_EQ(bytes.substr(kHeaderBytes + kShapedClaimedMoveBytes + 56, 24), std::string(24, '\0'));
  // The ellipsoid's: shape 1 at byte 49, its mask at 52, centre and radii at 56.
  const char* r = bytes.data() + kHeaderBytes + 2 * kShapedClaimedMoveBytes;
  EXPECT_EQ(r[49], 1);
  float f[6];
  std::memcpy(f, r + 56, sizeof f);
  EXPECT_EQ(f[1], 0.92f);
  EXPECT_EQ(f[4], 0.9f);
  const auto back = read_claimed_moves(path("m.cwsq"), 9.f);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    EXPECT_EQ(back[i].shape, moves[i].shape) << i;
    EXPECT_EQ(back[i].layers, moves[i].layers) << i;
    EXPECT_EQ(back[i].dt, moves[i].dt) << i;
    EXPECT_EQ(back[i].grounded, moves[i].grounded) << i;
  }
  EXPECT_EQ(std::memcmp(&back[2].ellipsoid, &e.ellipsoid, sizeof(Ellipsoid)), 0);
  EXPECT_EQ(std::memcmp(&back[1].from, &moves[1].from, sizeof(Capsule)), 0);
  // A file of both shapes is no sweep file of either; of ellipsoids only, it sweeps their paths.
  expect_error(path("m.cwsq"), "move 2 is an ellipsoid agent's, not a capsule sweep");
  expect_ellipsoid_error(path("m.cwsq"), "move 0 is a capsule agent's, not an ellipsoid sweep");
  QueryWriter only(path("e.cwsq"), {}, QueryRecords::shaped_claimed_moves);
  only.add(e);
  only.finish();
  const auto paths = read_ellipsoid_queries(path("e.cwsq"));
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].ellipsoid.centre, e.ellipsoid.centre);
  EXPECT_EQ(paths[0].motion, e.motion);
  EXPECT_EQ(paths[0].layers, 6u);
  // Refused, naming the move: another shape, a bad ellipsoid, a reserved byte; and an ellipsoid
  // claim written to a version that cannot hold it.
  const auto expect_move_error = [&](std::string bad, std::size_t at, char value, const std::string& fragment) {
    bad[at] = value;
    try {
      read_claimed_moves(write("bad.cwsq", bad));
      FAIL() << "accepted " << fragment;
    } catch (const FormatError& x) {
      EXPECT_NE(std::string(x.what()).find(fragment), std::string::npos) << x.what();
    }
  };
  const std::size_t third = kHeaderBytes + 2 * kShapedClaimedMoveBytes;
  expect_move_error(bytes, third + 49, 2, "move 2: shape must be 0 (a capsule) or 1 (an ellipsoid)");
  expect_move_error(bytes, third + 50, 1, "move 2: reserved bytes must be 0");
  std::string negative = bytes;
  const float minus = -0.5f;
  std::memcpy(negative.data() + third + 68, &minus, 4);
  expect_move_error(negative, third + 48, 1, "move 2: every radius of the ellipsoid must be positive");
  QueryWriter plain(path("p.cwsq"), {}, QueryRecords::claimed_moves);
  EXPECT_THROW(plain.add(e), std::invalid_argument);
}

// Version 8 is cs_claimed_move byte for byte: a version 7 record, then the ground triangle. Older
// versions read as no triangle known, and a writer of one refuses a claim that carries one.
TEST_F(QueryFile, ClaimedMovesWithTheirGroundTriangleRoundTripAsVersionEight) {
  std::vector<ClaimedMove> moves = some_moves();
  moves[0].ground_triangle = 41;
  moves[0].shape = AgentShape::ellipsoid;
  moves[0].ellipsoid = {{1, 0.92f, 3}, {0.35f, 0.9f, 0.35f}};
  moves[0].from = {};
  QueryWriter w(path("m.cwsq"), {}, QueryRecords::grounded_claimed_moves);
  for (const ClaimedMove& m : moves) w.add(m);
  w.finish();
  const std::string bytes = read(path("m.cwsq"));
  EXPECT_EQ(query_file_version(path("m.cwsq")), kGroundedClaimedMoveVersion);
  ASSERT_EQ(bytes.size(), kHeaderBytes + moves.size() * kGroundedClaimedMoveBytes);
  QueryWriter seven(path("v7.cwsq"), {}, QueryRecords::shaped_claimed_moves);
  seven.add(moves[1]);
  seven.finish();
  EXPECT_EQ(bytes.substr(kHeaderBytes + kGroundedClaimedMoveBytes, kShapedClaimedMoveBytes),
            read(path("v7.cwsq")).substr(kHeaderBytes));
  std::uint32_t triangle = 0;
  std::memcpy(&triangle, bytes.data() + kHeaderBytes + kShapedClaimedMoveBytes, 4);
  EXPECT_EQ(triangle, 41u);
  const auto back = read_claimed_moves(path("m.cwsq"));
  ASSERT_EQ(back.size(), moves.size());
  for (std::size_t i = 0; i < moves.size(); ++i) EXPECT_EQ(back[i].ground_triangle, moves[i].ground_triangle) << i;
  EXPECT_EQ(back[0].shape, AgentShape::ellipsoid);
  EXPECT_EQ(read_claimed_moves(path("v7.cwsq"))[0].ground_triangle, kNoTriangle);
  QueryWriter older(path("o.cwsq"), {}, QueryRecords::shaped_claimed_moves);
  EXPECT_THROW(older.add(moves[0]), std::invalid_argument);
  std::string bad = bytes;
  bad[kHeaderBytes + 49] = 2;
  expect_error(write("bad.cwsq", bad), "move 0: shape must be 0 (a capsule) or 1 (an ellipsoid)");
}
