// Ellipsoid agents in World::move and World::validate, one behaviour per test, on the small
// worlds of move_test.cpp: the person as an ellipsoid (radii 0.35, 0.9, 0.35) climbs the same
// stairs, stops at and slides along walls, rests in corners, falls and lands, walks down stairs;
// a flat wide ellipsoid and a tall thin one go where their shapes fit; ellipsoids and capsules
// share a crowd without overlapping, deterministically; an ellipsoid crowd's own trace validates.
// Clearances are measured with the oracle's own eSpace distance (tests/support/oracle.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <thread>

#include <capsweep/world.h>
#include "world/world_arrays.h"
#include "core/body.h"
#include "tests/support/people.h"
#include "tests/support/oracle.h"
#include "tests/support/same_answers.h"
#include "tests/support/test_meshes.h"
#include "tools/arena.h"
#include "tools/crowd.h"

namespace {

using namespace capsweep;
using testmesh::Mesh;

constexpr Vec3 kPerson{0.35f, 0.9f, 0.35f};
const MoveSettings kSettings{};

// An ellipsoid agent whose bottom is 2 cm above the height `ground` at (x, z).
Agent ellipsoid_agent(float x, float ground, float z, const Vec3& walk = {}, const Vec3& radii = kPerson) {
  Agent a;
  a.shape = AgentShape::ellipsoid;
  a.ellipsoid = {{x, ground + radii.y + 0.02f, z}, radii};
  a.capsule = bounding_capsule(a.ellipsoid);
  a.displacement = walk;
  return a;
}

using people::alone;

MoveResult walk(const World& w, Agent& a, int ticks, const MoveSettings& s = alone()) {
  MoveResult r;
  for (int i = 0; i < ticks; ++i) {
    w.move({&a, 1}, s, {&r, 1});
    EXPECT_EQ(r.shape, AgentShape::ellipsoid);
    a.ellipsoid = r.ellipsoid;
    a.capsule = r.capsule;
    a.vertical_speed = r.vertical_speed;
  }
  return r;
}

float feet(const Agent& a) { return a.ellipsoid.centre.y - a.ellipsoid.radii.y; }
const Vec3& centre(const Agent& a) { return a.ellipsoid.centre; }

// Where an agent comes to rest against a surface facing along an axis of radius `r`: its skin
// there (r skin / r_min, see core/body.h) plus the backoff.
float rest_gap(float r, const Vec3& radii = kPerson) {
  return r * kSettings.skin / std::min({radii.x, radii.y, radii.z}) + kSettings.backoff;
}

// The largest skin the ellipsoid keeps from the world: r_min (d - 1) for the smallest eSpace
// distance d to any triangle (the ellipsoid scaled out by s is clear exactly while s is below it).
double skin_gap(const World& w, const Ellipsoid& e) {
  const Vec3d c = to_double(e.centre), r = to_double(e.radii);
  double d = INFINITY;
  for (const Triangle& t : w.mesh_triangles()) {
    Vec3d v[3];
    for (int k = 0; k < 3; ++k) v[k] = {(t.v[k].x - c.x) / r.x, (t.v[k].y - c.y) / r.y, (t.v[k].z - c.z) / r.z};
    d = std::min(d, oracle::point_triangle({}, v).distance);
  }
  return std::min({r.x, r.y, r.z}) * (d - 1);
}

TEST(EllipsoidMove, ClimbsStepsUpToTheStepHeight) {
  const World w(Mesh().floor(-2, -2, 6, 2, 1).box({1, 0, -2}, {6, 0.3f, 2}).triangles());
  Agent a = ellipsoid_agent(0, 0, 0, {0.1f, 0, 0});
  bool stepped = false;
  for (int i = 0; i < 40; ++i) stepped |= (walk(w, a, 1).flags & kMoveSteppedUp) != 0;
  EXPECT_TRUE(stepped);
  EXPECT_GT(centre(a).x, 3.f);
  EXPECT_NEAR(feet(a), 0.3f + rest_gap(kPerson.y), 0.003f);
  EXPECT_GE(skin_gap(w, a.ellipsoid), kSettings.skin - 1e-4);
}

TEST(EllipsoidMove, RefusesStepsHigherThanTheStepHeight) {
  const World w(Mesh().floor(-2, -2, 6, 2, 1).box({1, 0, -2}, {6, 0.5f, 2}).triangles());
  Agent a = ellipsoid_agent(0, 0, 0, {0.1f, 0, 0});
  const MoveResult r = walk(w, a, 40);
  EXPECT_LT(centre(a).x, 1.f - 0.25f);  // its lower, narrower part against the step's edge
  EXPECT_LT(feet(a), 0.05f);
  EXPECT_TRUE(r.flags & kMoveBlocked);
  EXPECT_TRUE(r.grounded);
}

TEST(EllipsoidMove, WalksUpA30DegreeRampAndNotUpA60DegreeSlope) {
  {
    const World w(Mesh().floor(-3, -2, 1, 2, 1).ramp(1, -2, 4, 30, 2, 3).triangles());
    Agent a = ellipsoid_agent(0, 0, 0, {0.1f, 0, 0});
    for (int i = 0; i < 70; ++i) ASSERT_TRUE(walk(w, a, 1).grounded) << "tick " << i;
    EXPECT_GT(centre(a).x, 1 + 2 / std::tan(std::numbers::pi_v<float> / 6));
    EXPECT_NEAR(feet(a), 2 + rest_gap(kPerson.y), 0.003f);
  }
  const World w(Mesh().floor(-3, -2, 1, 2, 1).ramp(1, -2, 4, 60, 3, 3).triangles());
  Agent a = ellipsoid_agent(0, 0, 0, {0.1f, 0, 0});
  float highest = 0;
  for (int i = 0; i < 100; ++i) {
    walk(w, a, 1);
    highest = std::max(highest, feet(a));
  }
  EXPECT_LT(highest, 0.06f);
  EXPECT_LT(centre(a).x, 1.f);
}

TEST(EllipsoidMove, StopsAtAWallAndSlidesAlongItKeepingTheTangentialSpeed) {
  const World w(Mesh().floor(-4, -4, 4, 4, 1).wall(-4, 1, 4, 1, 3).triangles());
  Agent a = ellipsoid_agent(-3, 0, 0, {0.1f, 0, 0.1f});
  walk(w, a, 15);
  for (int i = 0; i < 20; ++i) {
    const float x = centre(a).x;
    const MoveResult r = walk(w, a, 1);
    EXPECT_NEAR(centre(a).x - x, 0.1f, 1e-4) << "tick " << i;
    EXPECT_NEAR(centre(a).z, 1 - kPerson.z - rest_gap(kPerson.z), 1e-3);
    EXPECT_TRUE(r.grounded);
  }
  EXPECT_GE(skin_gap(w, a.ellipsoid), kSettings.skin - 1e-4);
  // Straight into it: stopped a skin short, and blocked.
  Agent b = ellipsoid_agent(-3, 0, 0, {0, 0, 0.1f});
  const MoveResult r = walk(w, b, 20);
  EXPECT_TRUE(r.flags & kMoveBlocked);
  EXPECT_NEAR(centre(b).z, 1 - kPerson.z - rest_gap(kPerson.z), 1e-3);
}

TEST(EllipsoidMove, RestsInACornerWithoutJitter) {
  const World w(Mesh().floor(-4, -4, 4, 4, 1).wall(-4, 2, 2, 2, 3).wall(2, -4, 2, 2, 3).triangles());
  Agent a = ellipsoid_agent(0, 0, 0, {0.1f, 0, 0.07f});
  walk(w, a, 100);
  const Vec3 rest = centre(a);
  for (int i = 0; i < 100; ++i) {
    walk(w, a, 1);
    ASSERT_NEAR(centre(a).x, rest.x, 1e-5) << "tick " << i;
    ASSERT_NEAR(centre(a).y, rest.y, 1e-5) << "tick " << i;
    ASSERT_NEAR(centre(a).z, rest.z, 1e-5) << "tick " << i;
  }
  EXPECT_GE(skin_gap(w, a.ellipsoid), kSettings.skin - 1e-4);
}

TEST(EllipsoidMove, WalksOffALedgeFallsAndLands) {
  const World w(Mesh().floor(-6, -3, 6, 3, 1).box({-6, 0, -3}, {0, 2, 3}).triangles());
  Agent a = ellipsoid_agent(-1, 2, 0, {0.1f, 0, 0});
  bool fell = false;
  float lowest_speed = 0;
  for (int i = 0; i < 120; ++i) {
    if (i == 20) a.displacement = {};
    const MoveResult r = walk(w, a, 1);
    fell |= (r.flags & kMoveFalling) != 0;
    lowest_speed = std::min(lowest_speed, r.vertical_speed);
  }
  EXPECT_TRUE(fell);
  EXPECT_LT(lowest_speed, -3.f);
  EXPECT_NEAR(feet(a), rest_gap(kPerson.y), 0.003f);
  EXPECT_GT(centre(a).x, 0.f);
  EXPECT_EQ(a.vertical_speed, 0.f);
}

TEST(EllipsoidMove, WalksDownStairsStayingGrounded) {
  const World w(Mesh().floor(-3, -2, 8, 2, 1).stairs_down(-3, -2, 2, 10, 0.2f, 0.35f).triangles());
  Agent a = ellipsoid_agent(-1, 2, 0, {0.08f, 0, 0});
  walk(w, a, 3);
  int snapped = 0;
  for (int i = 0; i < 80; ++i) {
    const MoveResult r = walk(w, a, 1);
    ASSERT_TRUE(r.grounded) << "tick " << i;
    ASSERT_FALSE(r.flags & kMoveFalling) << "tick " << i;
    snapped += (r.flags & kMoveSnapped) != 0;
  }
  EXPECT_GE(snapped, 9);
  EXPECT_NEAR(feet(a), rest_gap(kPerson.y), 0.003f);
  EXPECT_GT(centre(a).x, 3.5f);
}

// A low passage (ceiling 0.8 m up) and a narrow one (walls 0.9 m apart): the flat wide ellipsoid
// (1.2 m across, 0.5 m tall) ducks under the ceiling and not between the walls; the tall thin one
// (0.5 m across, 1.8 m tall) the other way round.
TEST(EllipsoidMove, AFlatWideEllipsoidAndATallThinOneGoWhereTheirShapesFit) {
  const Vec3 flat{0.6f, 0.25f, 0.6f}, thin{0.25f, 0.9f, 0.25f};
  const World low(Mesh().floor(-4, -3, 8, 3, 1).box({1, 0.8f, -3}, {8, 3, 3}).triangles());
  const World narrow(Mesh().floor(-4, -3, 8, 3, 1).box({1, 0, -3}, {8, 3, -0.45f}).box({1, 0, 0.45f}, {8, 3, 3}).triangles());
  auto distance_walked = [](const World& w, const Vec3& radii) {
    Agent a = ellipsoid_agent(-2, 0, 0, {0.1f, 0, 0}, radii);
    walk(w, a, 80);
    EXPECT_GE(skin_gap(w, a.ellipsoid), kSettings.skin - 1e-4);
    return centre(a).x;
  };
  EXPECT_GT(distance_walked(low, flat), 5.f) << "under the ceiling";
  EXPECT_LT(distance_walked(low, thin), 1.f) << "the ceiling stops the tall one";
  EXPECT_GT(distance_walked(narrow, thin), 5.f) << "between the walls";
  EXPECT_LT(distance_walked(narrow, flat), 1.f) << "the walls stop the wide one";
}

TEST(EllipsoidMove, AStartInsideAWallIsPushedOutOfItsSkin) {
  const World w(Mesh().floor(-4, -4, 4, 4, 1).box({0, 0, -2}, {1, 3, 2}).triangles());
  for (const Vec3& radii : {kPerson, Vec3{0.8f, 0.3f, 0.5f}, Vec3{0.2f, 0.5f, 1.5f}}) {
    Agent a = ellipsoid_agent(0.15f - radii.x, 0, 0, {}, radii);  // 0.15 m into the box's face
    const MoveResult r = walk(w, a, 1);
    EXPECT_TRUE(r.flags & kMoveDepenetrated);
    EXPECT_GT(r.pushed, 0.15f);
    EXPECT_LT(r.ellipsoid.centre.x, -radii.x);
    EXPECT_GE(skin_gap(w, r.ellipsoid), kSettings.skin - 1e-4);
  }
}

TEST(EllipsoidMove, RefusesBadEllipsoidsAndKeepsThemInPlace) {
  const World w(Mesh().floor(-2, -2, 2, 2, 1).triangles());
  std::vector<Agent> agents{ellipsoid_agent(0, 0, 0, {0.1f, 0, 0}), ellipsoid_agent(1, 0, 1, {0.1f, 0, 0})};
  agents[0].ellipsoid.radii.y = 0;
  agents[1].ellipsoid.centre.x = NAN;
  std::vector<MoveResult> r(2);
  std::vector<Status> status(2);
  EXPECT_EQ(w.move(agents, MoveSettings{}, r, {}, {}, status), 2u);
  EXPECT_EQ(status[0], Status::bad_radius);
  EXPECT_EQ(status[1], Status::non_finite_capsule);
  EXPECT_EQ(r[0].ellipsoid.centre, agents[0].ellipsoid.centre);
  EXPECT_EQ(r[0].shape, AgentShape::ellipsoid);
}

// Other agents meet an ellipsoid as the capsule that holds it: ellipsoids and capsules walking
// into each other, head on and off-centre, never overlap, and stop facing each other.
TEST(EllipsoidMove, EllipsoidsAndCapsulesWalkingIntoEachOtherNeverOverlap) {
  const World w(Mesh().floor(-6, -3, 6, 3, 1).triangles());
  for (float offset : {0.f, 0.2f}) {
    std::vector<Agent> agents{ellipsoid_agent(-2, 0, 0, {0.1f, 0, 0}), ellipsoid_agent(2, 0, offset, {-0.1f, 0, 0}),
                              ellipsoid_agent(-2, 0, 2, {0.1f, 0, 0}, {0.5f, 0.4f, 0.3f})};
    Agent capsule;  // a capsule person walking into the flat ellipsoid
    capsule.capsule = {{2, 0.37f, 2 + offset}, {2, 1.47f, 2 + offset}, 0.35f};
    capsule.displacement = {-0.1f, 0, 0};
    agents.push_back(capsule);
    for (std::size_t i = 0; i < agents.size(); ++i) agents[i].id = std::uint32_t(i);
    std::vector<MoveResult> r(agents.size());
    for (int i = 0; i < 80; ++i) {
      w.move(agents, MoveSettings{}, r);
      for (std::size_t k = 0; k < agents.size(); ++k) {
        agents[k].capsule = r[k].capsule;
        agents[k].ellipsoid = r[k].ellipsoid;
      }
      for (auto [p, q] : {std::pair{0, 1}, std::pair{2, 3}}) {
        Contact c;
        capsule_capsule_contact(agents[std::size_t(p)].capsule, agents[std::size_t(q)].capsule, c);
        ASSERT_GE(c.distance, agents[std::size_t(p)].capsule.radius + agents[std::size_t(q)].capsule.radius - 1e-4)
            << "tick " << i;
      }
    }
    if (offset == 0) {
      EXPECT_LT(agents[0].ellipsoid.centre.x, agents[1].ellipsoid.centre.x);
      EXPECT_LT(agents[2].ellipsoid.centre.x, agents[3].capsule.a.x);
    }
  }
}

// A crowd in motion of ellipsoids only, and of ellipsoids and capsules mixed: the same bytes on
// every thread count and agent order, on the simd and scalar paths.
TEST(EllipsoidMoveDeterminism, IdenticalForEveryThreadCountAndAgentOrder) {
  const World w(make_arena());
  for (const std::vector<AgentShape>& shapes :
       {std::vector<AgentShape>{AgentShape::ellipsoid}, std::vector<AgentShape>{AgentShape::ellipsoid, AgentShape::capsule}}) {
    CrowdSettings cs;
    cs.agents = 1200;
    cs.seed = 9;
    cs.agent_shapes = shapes;
    Crowd crowd(w, cs);
    for (int i = 0; i < 30; ++i) {
      crowd.tick();
      const CrowdViolations v = crowd.check();
      ASSERT_EQ(v.penetrating + v.overlapping, 0u) << "tick " << i;
    }
    const std::vector<Agent> agents = crowd.agents();
    for (std::size_t i = 0; i < agents.size(); ++i) ASSERT_EQ(agents[i].shape, shapes[i % shapes.size()]);
    for (SweepPath path : {SweepPath::simd, SweepPath::scalar}) {
      BatchOptions one;
      one.threads = 1;
      one.path = path;
      std::vector<MoveResult> reference(agents.size());
      w.move(agents, MoveSettings{}, reference, one);
      const int max_threads = int(std::max(2u, std::thread::hardware_concurrency()));
      for (int threads = 2; threads <= max_threads; ++threads) {
        BatchOptions o = one;
        o.threads = threads;
        std::vector<MoveResult> r(agents.size());
        w.move(agents, MoveSettings{}, r, o);
        for (std::size_t i = 0; i < agents.size(); ++i) ASSERT_TRUE(answers::same(r[i], reference[i])) << "agent " << i;
      }
      const std::vector<Agent> reversed(agents.rbegin(), agents.rend());
      std::vector<MoveResult> r(agents.size());
      w.move(reversed, MoveSettings{}, r, one);
      for (std::size_t i = 0; i < agents.size(); ++i) {
        ASSERT_TRUE(answers::same(r[agents.size() - 1 - i], reference[i])) << "agent " << i;
      }
    }
  }
}

// Every segment an ellipsoid crowd travels on the arena (stairs, ramp, falls off the platform),
// claimed with the state it started from, is `ok`; the same claims 1 m higher are too fast. A
// move through a wall is blocked on it, with a correction that keeps the skin.
TEST(EllipsoidValidate, EverySegmentAnEllipsoidCrowdTravelsIsOk) {
  const World w(make_arena());
  CrowdSettings cs;
  cs.agents = 600;
  cs.seed = 12;
  cs.trace = true;
  cs.move.agents_collide = false;
  cs.agent_shapes = {AgentShape::ellipsoid, AgentShape::ellipsoid, AgentShape::capsule};
  Crowd crowd(w, cs);
  std::vector<ClaimedMove> claims;
  for (int t = 0; t < 240; ++t) {
    crowd.tick();
    crowd.claims(claims);
  }
  std::size_t ellipsoids = 0, falls = 0, climbs = 0;
  for (const ClaimedMove& c : claims) {
    if (c.shape != AgentShape::ellipsoid) continue;
    ++ellipsoids;
    falls += c.motion.y < -0.05f && c.vertical_speed < -1.f;
    climbs += c.motion.y > 0.1f;
  }
  ASSERT_GT(ellipsoids, claims.size() / 2);
  ASSERT_GT(falls, 20u);
  ASSERT_GT(climbs, 20u);
  ValidateSettings s;
  s.rule = ClaimRule::straight_segment;  // the client sends its segments
  s.max_speed = cs.max_speed;
  std::vector<Verdict> v(claims.size());
  w.validate(claims, s, v);
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(v[i].kind, VerdictKind::ok) << "segment " << i << (claims[i].shape == AgentShape::ellipsoid ? " (ellipsoid)" : "")
                                           << " moving " << claims[i].motion.x << ' ' << claims[i].motion.y << ' '
                                           << claims[i].motion.z << " allowed " << v[i].allowed.horizontal << " ["
                                           << v[i].allowed.down << ", " << v[i].allowed.up << "]";
    if (claims[i].shape == AgentShape::ellipsoid) {
      ASSERT_EQ(v[i].corrected_ellipsoid.centre, claims[i].ellipsoid.centre + claims[i].motion);
    }
  }
  std::size_t caught = 0;
  for (ClaimedMove& c : claims) c.motion.y += 1.f;
  w.validate(claims, s, v);
  for (const Verdict& x : v) caught += x.kind == VerdictKind::too_fast;
  EXPECT_EQ(caught, claims.size());

  // Through a wall: blocked on its face, the furthest legal ellipsoid at the hit, the correction
  // short of it by the skin.
  const World walled(Mesh().floor(-5, -5, 5, 5, 1).box({2, 0, -5}, {2.5f, 3, 5}).triangles());
  ClaimedMove through;
  through.shape = AgentShape::ellipsoid;
  through.ellipsoid = {{0, 0.92f, 0}, kPerson};
  through.motion = {4, 0, 0};
  through.dt = 0;
  Verdict verdict;
  walled.validate(std::span(&through, 1), ValidateSettings{}, std::span(&verdict, 1));
  EXPECT_EQ(verdict.kind, VerdictKind::blocked);
  EXPECT_NEAR(verdict.hit.normal.x, -1.f, 1e-5f);
  EXPECT_NEAR(verdict.furthest_ellipsoid.centre.x, 2 - (kPerson.x - 0.01f), 1e-3f);
  EXPECT_LT(verdict.corrected_ellipsoid.centre.x, 2 - kPerson.x - 0.01f + 1e-4f);
  EXPECT_GE(skin_gap(walled, verdict.corrected_ellipsoid), kSettings.skin - 1e-4);
  EXPECT_EQ(verdict.furthest_ellipsoid.radii, kPerson);
  // A start inside the wall, and a tolerance no smaller than the thinnest radius.
  through.ellipsoid.centre.x = 2.2f;
  walled.validate(std::span(&through, 1), ValidateSettings{}, std::span(&verdict, 1));
  EXPECT_EQ(verdict.kind, VerdictKind::start_overlaps);
  // That tolerance is an error of the settings (issue 36), no longer a refused verdict.
  through.ellipsoid.radii = {0.005f, 0.9f, 0.35f};
  EXPECT_THROW(walled.validate(std::span(&through, 1), ValidateSettings{}, std::span(&verdict, 1)),
               std::invalid_argument);
}

}  // namespace
