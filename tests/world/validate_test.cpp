// World::validate: legal moves pass; moves through walls, from inside solids and faster than
// the limit are flagged, with the right hit and a corrected position that is itself legal.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <capsweep/world.h>
#include "tests/support/test_meshes.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include "world/solver_queries.h"

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
  const Triangle t = w.triangle(v[0].hit.triangle);
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

// The validator asks for the start's deepest overlap only where the straight path's sweep starts
// touching (t = 0): a start the sweep finds clear must overlap nothing. Held on starts a few float
// steps either side of touching a face, an edge or a corner, for capsules (spheres among them) and
// ellipsoids, moving toward, away and not at all, at the origin and 20 km from it, and on both paths.
TEST(Validate, AStartOverlapsExactlyWhereTheDeepestOverlapFindsOne) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.f, 1.f), sym(-1.f, 1.f);
  const auto random_dir = [&] {
    for (;;) {
      const Vec3 v{sym(rng), sym(rng), sym(rng)};
      const float l = length(v);
      if (l > 0.1f && l <= 1.f) return v * (1.f / l);
    }
  };
  for (const float origin : {0.f, 20000.f}) {
    const Vec3 o{origin, 0.5f * origin, -origin};
    std::vector<Triangle> tris;
    for (int i = 0; i < 8; ++i) {
      const Vec3 c = o + Vec3{sym(rng) * 4, sym(rng) * 2, sym(rng) * 4};
      const float size = 0.5f + 2.5f * unit(rng);
      tris.push_back({{c + random_dir() * size, c + random_dir() * size, c + random_dir() * (i == 7 ? 0.01f : size)}});
    }
    const World w(tris);
    std::vector<ClaimedMove> claims;
    for (int i = 0; i < 4000; ++i) {
      const Triangle& t = tris[rng() % tris.size()];
      // A point of the face, of an edge or a corner, and a way out of it.
      float u = unit(rng), v = unit(rng) * (1 - u);
      if (i % 3 == 1) v = 0;
      if (i % 3 == 2) u = float(rng() % 2), v = 0;
      const Vec3 p = t.v[0] + (t.v[1] - t.v[0]) * u + (t.v[2] - t.v[0]) * v;
      Vec3 n = cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
      n = i % 2 ? n * (1.f / length(n)) : random_dir();
      if (rng() % 2) n = -n;
      ClaimedMove m;
      const ValidateSettings s;
      const int nudge = int(rng() % 9) - 4;  // float steps either side of touching
      const auto nudged = [&](Vec3 at) {
        for (int k = 0; k < std::abs(nudge); ++k) at.x = std::nextafter(at.x, nudge > 0 ? INFINITY : -INFINITY);
        return at;
      };
      if (i % 5 == 4) {
        const Vec3 radii{0.2f + 0.3f * unit(rng), 0.3f + 0.6f * unit(rng), 0.2f + 0.3f * unit(rng)};
        const Vec3 shrunk = radii - Vec3{s.tolerance, s.tolerance, s.tolerance};
        const Vec3 scaled{shrunk.x * n.x, shrunk.y * n.y, shrunk.z * n.z};
        m.shape = AgentShape::ellipsoid;
        m.ellipsoid = {nudged(p + n * length(scaled)), radii};  // the support of the shrunk body along n
      } else {
        const float radius = 0.1f + 0.4f * unit(rng);
        const Vec3 a = nudged(p + n * (radius - s.tolerance));
        Vec3 axis = random_dir() * (i % 7 == 0 ? 0.f : 1.1f * unit(rng));
        if (dot(axis, n) < 0 && rng() % 2) axis = -axis;
        m.from = {a, a + axis, radius};
      }
      const int way = int(rng() % 4);
      m.motion = way == 0 ? Vec3{} : way == 1 ? n * -0.05f : way == 2 ? n * 0.05f : random_dir() * 0.3f;
      claims.push_back(m);
    }
    ValidateSettings s;
    s.movement.agents_collide = false;
    std::size_t overlapping = 0;
    for (const SweepPath path : {SweepPath::simd, SweepPath::scalar}) {
      std::vector<Verdict> verdicts(claims.size());
      BatchOptions options;
      options.path = path;
      w.validate(claims, s, verdicts, options);
      overlapping = 0;
      for (std::size_t i = 0; i < claims.size(); ++i) {
        const ClaimedMove& m = claims[i];
        std::uint32_t triangle;
        bool deepest;
        if (m.shape == AgentShape::ellipsoid) {
          const Vec3 shrunk = m.ellipsoid.radii - Vec3{s.tolerance, s.tolerance, s.tolerance};
          EllipsoidContact k;
          deepest = deepest_ellipsoid_overlap(w, {m.ellipsoid.centre, shrunk}, k, triangle);
        } else {
          Contact k;
          deepest = w.deepest_overlap({m.from.a, m.from.b, m.from.radius - s.tolerance}, k, triangle);
        }
        overlapping += deepest;
        ASSERT_EQ(verdicts[i].kind == VerdictKind::start_overlaps, deepest) << origin << " claim " << i;
        if (deepest) {
          EXPECT_EQ(verdicts[i].hit.triangle, triangle) << origin << " claim " << i;
        }
      }
    }
    // Both sides of touching were tried.
    EXPECT_GT(overlapping, claims.size() / 5) << origin;
    EXPECT_LT(overlapping, claims.size() * 4 / 5) << origin;
  }
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
    ASSERT_EQ(a[i].grounded, b[i].grounded);
    ASSERT_EQ(a[i].in_skin, b[i].in_skin);
    ASSERT_EQ(std::memcmp(&a[i].allowed, &b[i].allowed, sizeof(MoveAllowance)), 0);
  }
}

}  // namespace

namespace {

using namespace capsweep;

// A floor and, 2 m up, a ledge to fall from: agents in mid-air over the floor, or standing.
World ledge() { return World(testmesh::Mesh().floor(-5, -5, 5, 5, 1).box({2, 0, -5}, {5, 2, 5}).triangles()); }

ClaimedMove at(float x, float bottom, const Vec3& motion, float dt, float vertical_speed, bool grounded) {
  const float y = bottom + 0.35f;
  return {{{x, y, 0}, {x, y + 1.1f, 0}, 0.35f}, motion, dt, vertical_speed, grounded};
}

VerdictKind judge(const World& w, const ClaimedMove& m, const ValidateSettings& s = {}, Verdict* out = nullptr) {
  std::vector<Verdict> v(1);
  w.validate(std::span(&m, 1), s, v);
  if (out) *out = v[0];
  return v[0].kind;
}

}  // namespace

TEST(ValidateGravity, TheAllowanceIsTheDocumentedFormula) {
  // A piece of a tick (the formula of straight segments; tick ends: validate_claims_test.cpp).
  ValidateSettings s;
  s.rule = ClaimRule::straight_segment;
  s.max_speed = 7;
  const MoveSettings& m = s.movement;
  const double slack = double(s.tolerance) + m.skin + m.backoff;
  // Falling at 10 m/s for 0.1 s: gravity adds 0.981 m/s; no ground terms but the ramp a walk
  // of 0.3 m may follow (45 degrees: 0.3 m); 0.5 m of it down.
  ClaimedMove fall = at(0, 3, {0.3f, -0.5f, 0}, 0.1f, -10, false);
  MoveAllowance a = allowance(fall, s, {false, false});
  const double reach = (10 + 9.81 * 0.1) * 0.1;
  EXPECT_NEAR(a.down, -reach - 0.3 - slack, 1e-6);
  EXPECT_NEAR(a.up, 0.3 + slack, 1e-6);
  EXPECT_NEAR(a.horizontal, 7 * 0.1 + std::sqrt(0.5 * reach) + s.tolerance, 1e-6);
  // Terminal speed caps the fall.
  fall.vertical_speed = -100;
  EXPECT_NEAR(allowance(fall, s, {false, false}).down, -m.max_fall_speed * 0.1 - 0.3 - slack, 1e-5);
  // Grounded and walking 0.1 m: steps and a 45-degree ramp up, steps plus the snap down; the
  // resting agent's fall starts at 0 m/s.
  const ClaimedMove walk = at(0, 0.02f, {0.1f, 0, 0}, 1 / 60.f, -3, true);
  a = allowance(walk, s, {true, false});
  const double ramp = 0.1 * std::tan(45 * 3.14159265358979 / 180), g_fall = 9.81 / 3600.0;
  const double snap = std::max(m.snap_distance, m.ground_distance);
  EXPECT_NEAR(a.up, m.step_height + ramp + slack, 1e-6);
  EXPECT_NEAR(a.down, -g_fall - m.step_height - snap - ramp - slack, 1e-6);
  EXPECT_NEAR(a.horizontal, 7 / 60.0 + s.tolerance, 1e-6);  // nothing down: no slide
  // Inside the skin: the solver's push out, 4 (skin + backoff), widens every bound.
  const MoveAllowance in = allowance(walk, s, {true, true});
  const double push = 4.0 * (double(m.skin) + m.backoff);
  EXPECT_NEAR(in.up - a.up, push, 1e-6);
  EXPECT_NEAR(a.down - in.down, push, 1e-6);
  EXPECT_NEAR(in.horizontal - a.horizontal, push, 1e-6);
  // No dt: nothing is bounded; no speed limit: the horizontal part is not.
  EXPECT_TRUE(std::isinf(allowance(at(0, 0, {1, 1, 1}, 0, 0, false), s, {false, false}).up));
  s.max_speed = kNoSpeedLimit;
  EXPECT_TRUE(std::isinf(allowance(walk, s, {true, false}).horizontal));
}

TEST(ValidateGravity, AFallIsOkAtTheSpeedGravityAllowsAndNotFromRest) {
  const World w = ledge();
  ValidateSettings s;
  s.max_speed = 7;
  // Mid-air, 1.5 m over the floor: 20 m/s down claims 0.35 m in 1/60 s.
  EXPECT_EQ(judge(w, at(0, 1.5f, {0.02f, -20.f / 60, 0}, 1 / 60.f, -19.9f, false), s), VerdictKind::ok);
  // The same drop from rest is far more than gravity gives in one tick: a piece of a tick
  // (straight_segment) is held to gravity's window. A tick's end (tick_end) is held to terminal
  // speed only, as the vertical speed a server carries bounds the agent's from above (after a
  // fall was turned, the solver's may be lower: validate.h).
  Verdict v;
  s.rule = ClaimRule::straight_segment;
  EXPECT_EQ(judge(w, at(0, 1.5f, {0.02f, -20.f / 60, 0}, 1 / 60.f, 0, false), s, &v), VerdictKind::too_fast);
  EXPECT_FALSE(v.grounded);  // the probe found no ground under it
  s.rule = ClaimRule::tick_end;
  EXPECT_EQ(judge(w, at(0, 1.5f, {0.02f, -20.f / 60, 0}, 1 / 60.f, 0, false), s), VerdictKind::ok);
  EXPECT_EQ(judge(w, at(0, 1.5f, {0.02f, -60.f / 60, 0}, 1 / 60.f, 0, false), s), VerdictKind::too_fast);
  // Rising without having jumped, in mid-air: too fast; from the ledge with a jump speed: fine.
  EXPECT_EQ(judge(w, at(0, 1.5f, {0, 0.2f, 0}, 1 / 60.f, 0, false), s), VerdictKind::too_fast);
  const ClaimedMove jump = at(3.5f, 2.02f, {0, 1.5f, 0}, 0.25f, 0, true);  // 6 m/s for 0.25 s
  EXPECT_EQ(judge(w, jump, s), VerdictKind::too_fast);
  s.jump_speed = 6.5f;
  EXPECT_EQ(judge(w, jump, s), VerdictKind::ok);
  // An agent already rising carries its speed without touching the ground.
  s.jump_speed = 0;
  EXPECT_EQ(judge(w, at(0, 1.5f, {0, 0.09f, 0}, 1 / 60.f, 5.5f, false), s), VerdictKind::ok);
}

TEST(ValidateGravity, GroundedAgentsClimbStepsAndTheValidatorFindsTheGroundItself) {
  const World w = ledge();
  ValidateSettings s;
  // Pieces of ticks: a step's rise ends in the air (tick ends: validate_claims_test.cpp).
  s.rule = ClaimRule::straight_segment;
  s.max_speed = 7;
  // Up a 0.3 m step while walking 0.1 m: grounded by the server's word.
  EXPECT_EQ(judge(w, at(-1, 0.02f, {0.1f, 0.3f, 0}, 1 / 60.f, 0, true), s), VerdictKind::ok);
  // Not said to be grounded, but standing 2 cm over the floor: the probe finds the floor.
  Verdict v;
  EXPECT_EQ(judge(w, at(-1, 0.02f, {0.1f, 0.3f, 0}, 1 / 60.f, 0, false), s, &v), VerdictKind::ok);
  EXPECT_TRUE(v.grounded);
  // 1 m over the floor, nothing to stand on: the same step is a fly.
  EXPECT_EQ(judge(w, at(-1, 1.f, {0.1f, 0.3f, 0}, 1 / 60.f, 0, false), s, &v), VerdictKind::too_fast);
  EXPECT_FALSE(v.grounded);
  EXPECT_FALSE(v.in_skin);
  EXPECT_GT(0.3f, v.allowed.up);
  // Higher than a step: too fast even from the ground.
  EXPECT_EQ(judge(w, at(-1, 0.02f, {0.1f, 0.6f, 0}, 1 / 60.f, 0, true), s), VerdictKind::too_fast);
  // An agent at rest (a skin plus the backoff above the floor) gets no skin push as slack:
  // 1.3 times the walking limit is too fast.
  EXPECT_EQ(judge(w, at(-1, 0.015f, {1.3f * 7 / 60.f, 0, 0}, 1 / 60.f, 0, true), s, &v), VerdictKind::too_fast);
  EXPECT_FALSE(v.in_skin);
  EXPECT_EQ(judge(w, at(-1, 0.015f, {7 / 60.f, 0, 0}, 1 / 60.f, 0, true), s), VerdictKind::ok);
  // Horizontally, only max_speed counts now: a fall straight down is not a speeding walk.
  EXPECT_EQ(judge(w, at(0, 1.5f, {0.1f, 0, 0}, 1 / 60.f, 0, false), s), VerdictKind::ok);
  EXPECT_EQ(judge(w, at(0, 1.5f, {0.2f, 0, 0}, 1 / 60.f, 0, false), s), VerdictKind::too_fast);
}

TEST(ValidateGravity, EverySegmentACrowdTravelsIsOkWithTheStateItStartedFrom) {
  // The arena has stairs, a ramp, a platform to fall from and crates: 600 agents for 240
  // ticks, agents passing through each other (the validator sees only the world).
  const World w(make_arena());
  CrowdSettings cs;
  cs.agents = 600;
  cs.seed = 11;
  cs.trace = true;
  cs.move.agents_collide = false;
  Crowd crowd(w, cs);
  std::vector<ClaimedMove> claims;
  for (int t = 0; t < 240; ++t) {
    crowd.tick();
    crowd.claims(claims);
  }
  std::size_t falls = 0, climbs = 0;
  for (const ClaimedMove& c : claims) {
    falls += c.motion.y < -0.05f && c.vertical_speed < -1.f;
    climbs += c.motion.y > 0.1f;
  }
  ASSERT_GT(falls, 20u);   // the test sees real falls ...
  ASSERT_GT(climbs, 20u);  // ... and real steps
  ValidateSettings s;
  s.rule = ClaimRule::straight_segment;  // the client sends its segments
  s.max_speed = cs.max_speed;  // the crowd's own fastest walker
  std::vector<Verdict> v(claims.size());
  w.validate(claims, s, v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(v[i].kind, VerdictKind::ok) << "segment " << i << " moving " << claims[i].motion.x << ' '
                                           << claims[i].motion.y << ' ' << claims[i].motion.z << " allowed "
                                           << v[i].allowed.horizontal << " [" << v[i].allowed.down << ", "
                                           << v[i].allowed.up << "]";
  }
  // And the same claims told a bigger lie are caught: every one moved 1 m up more.
  std::size_t caught = 0;
  for (ClaimedMove& c : claims) c.motion.y += 1.f;
  w.validate(claims, s, v);
  for (const Verdict& x : v) caught += x.kind == VerdictKind::too_fast;
  EXPECT_EQ(caught, claims.size());
}
