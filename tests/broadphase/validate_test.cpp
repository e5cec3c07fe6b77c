// World::validate: legal moves pass; moves through walls, from inside solids and faster than
// the limit are flagged, with the right hit and a corrected position that is itself legal.
#include <gtest/gtest.h>

#include <cmath>

#include <capsweep/world.h>
#include "tests/support/test_meshes.h"

namespace {

using namespace capsweep;
using testmesh::Mesh;

ClaimedMove claim(float x, float z, const Vec3& motion, float dt = 0) {
  const float y = 0.35f + 0.02f;
  return {{{x, y, z}, {x, y + 1.1f, z}, 0.35f}, motion, dt};
}

// Floor, and a wall 0.5 m thick across x = 2 .. 2.5 (triangles 0.. of the box come after the floor).
World walled() { return World(Mesh().floor(-5, -5, 5, 5, 1).box({2, 0, -5}, {2.5f, 3, 5}).triangles()); }

TEST(Validate, LegalMovesPass) {
  const World w = walled();
  std::vector<ClaimedMove> moves{claim(0, 0, {1, 0, 0.5f}), claim(-3, -3, {0, 0, 2}), claim(1, 0, {0.2f, 0, 0})};
  std::vector<Verdict> v(moves.size());
  w.validate(moves, {}, v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_EQ(v[i].kind, VerdictKind::ok) << i;
    EXPECT_EQ(v[i].legal_fraction, 1.f);
    EXPECT_EQ(v[i].corrected.a, moves[i].from.a + moves[i].motion);
  }
}

TEST(Validate, AMoveThroughAWallIsBlockedAtTheWall) {
  const World w = walled();
  const std::vector<ClaimedMove> moves{claim(0, 0, {4, 0, 0})};
  std::vector<Verdict> v(1);
  w.validate(moves, {}, v);
  ASSERT_EQ(v[0].kind, VerdictKind::blocked);
  ASSERT_TRUE(v[0].hit.hit);
  const Triangle& t = w.triangles()[v[0].hit.triangle];
  for (const Vec3& p : t.v) EXPECT_EQ(p.x, 2.f);  // the wall's near face
  EXPECT_NEAR(v[0].hit.normal.x, -1.f, 1e-6);
  // The capsule (shrunk by the 1 cm tolerance) touches at x = 2 - 0.34.
  EXPECT_NEAR(v[0].furthest.a.x, 2 - 0.34f, 1e-4);
  EXPECT_NEAR(v[0].legal_fraction, (2 - 0.34f) / 4, 1e-5);
  // The correction stops before the wall, a skin away.
  EXPECT_LT(v[0].corrected.a.x, 2 - 0.35f - 0.01f + 1e-4f);
  EXPECT_GT(v[0].corrected.a.x, 1.5f);
  EXPECT_TRUE(w.is_clear(v[0].corrected, 0.01f - 1e-4f));
}

TEST(Validate, AStartInsideSolidGeometryIsFlagged) {
  const World w = walled();
  const std::vector<ClaimedMove> moves{claim(2.25f, 0, {-3, 0, 0})};
  std::vector<Verdict> v(1);
  w.validate(moves, {}, v);
  EXPECT_EQ(v[0].kind, VerdictKind::start_overlaps);
  EXPECT_TRUE(v[0].hit.hit);
  // A soup has no inside: the depth is that of the nearest face (0.25 m away, radius 0.34).
  EXPECT_NEAR(v[0].hit.depth, 0.09f, 1e-4);
  EXPECT_NEAR(std::fabs(v[0].hit.normal.x), 1.f, 1e-6);
  EXPECT_NE(v[0].hit.triangle, kNoTriangle);
}

TEST(Validate, AMoveFasterThanTheLimitIsFlagged) {
  const World w = walled();
  ValidateSettings s;
  s.max_speed = 7;  // m/s
  const std::vector<ClaimedMove> moves{claim(0, 0, {0.1f, 0, 0}, 1 / 60.f), claim(0, 0, {1, 0, 0}, 1 / 60.f),
                                       claim(0, 0, {1, 0, 0}, 0)};
  std::vector<Verdict> v(moves.size());
  w.validate(moves, s, v);
  EXPECT_EQ(v[0].kind, VerdictKind::ok);
  EXPECT_EQ(v[1].kind, VerdictKind::too_fast);
  EXPECT_EQ(v[2].kind, VerdictKind::ok);  // no dt: no speed check
}

TEST(Validate, BadInputIsRefused) {
  const World w = walled();
  std::vector<ClaimedMove> moves{claim(0, 0, {INFINITY, 0, 0}), claim(0, 0, {1, 0, 0}, NAN)};
  std::vector<Verdict> v(moves.size());
  w.validate(moves, {}, v);
  EXPECT_EQ(v[0].kind, VerdictKind::refused);
  EXPECT_EQ(v[0].status, Status::non_finite_motion);
  EXPECT_EQ(v[1].kind, VerdictKind::refused);
  std::vector<Verdict> wrong(1);
  EXPECT_THROW(w.validate(moves, {}, wrong), std::invalid_argument);
}

TEST(Validate, IdenticalForEveryThreadCount) {
  const World w = walled();
  std::vector<ClaimedMove> moves;
  for (int i = 0; i < 2000; ++i) {
    moves.push_back(claim(-4 + 0.004f * float(i), -4 + 0.003f * float(i), {float(i % 7) - 2, 0, float(i % 5) - 2}, 0.1f));
  }
  ValidateSettings s;
  s.max_speed = 30;
  BatchOptions one, two;
  one.threads = 1;
  two.threads = 2;
  std::vector<Verdict> a(moves.size()), b(moves.size());
  w.validate(moves, s, a, one);
  w.validate(moves, s, b, two);
  for (std::size_t i = 0; i < moves.size(); ++i) {
    ASSERT_EQ(a[i].kind, b[i].kind);
    ASSERT_TRUE(identical(a[i].hit, b[i].hit));
    ASSERT_EQ(a[i].corrected.a, b[i].corrected.a);
  }
}

}  // namespace
