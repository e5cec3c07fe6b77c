// Agents and moving instances (issue 37): a tick on a frame whose instances moved (World::posed)
// carries the agents standing on them, pushes the agents they run into, and flags the agents
// with nowhere to go as crushed, never leaving one inside anything unflagged. A lift carries 500
// agents up 10 m, a door closes on a crowd against a wall, a platform spins at 1 rad/s, a
// platform slides into a wall with an agent on it, a lift rises into a ceiling; every tick on 1
// and 2 threads gives the same bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <capsweep/instances.h>
#include <capsweep/sweep.h>
#include <capsweep/world.h>
#include "tests/support/same_answers.h"
#include "tests/support/test_meshes.h"

namespace {

using namespace capsweep;

// Two agents closer than their radii by more than `tolerance`, surface to surface.
bool capsules_overlap(const Capsule& a, const Capsule& b, float tolerance) {
  Contact k;
  capsule_capsule_contact(a, b, k);
  return k.distance < double(a.radius) + double(b.radius) - tolerance;
}

Agent standing(float x, float y, float z, std::uint32_t id) {
  Agent a;
  a.capsule = {{x, y + 0.37f, z}, {x, y + 1.47f, z}, 0.35f};
  a.id = id;
  return a;
}

// Runs ticks of `agents` on frames made by `pose(tick)`, on 1 and 2 threads (the same bytes), and
// checks every agent not crushed ends clear of the frame by half the skin. Returns the crushed
// agent-ticks.
template <class Pose, class Check>
std::size_t run(World frame, std::uint32_t id, std::vector<Agent> agents, int ticks, const Pose& pose, const Check& check) {
  const MoveSettings settings;
  std::size_t crushed = 0;
  for (int tick = 0; tick < ticks; ++tick) {
    const InstancePose p{id, pose(tick + 1)};
    frame = frame.posed(std::span(&p, 1));
    std::vector<MoveResult> one(agents.size()), two(agents.size());
    frame.move(agents, settings, one, on_path(SweepPath::simd, 1));
    frame.move(agents, settings, two, on_path(SweepPath::simd, 2));
    for (std::size_t i = 0; i < agents.size(); ++i) {
      EXPECT_TRUE(answers::same(one[i], two[i])) << "tick " << tick << " agent " << i;
      if (one[i].flags & kMoveCrushed) {
        ++crushed;
        EXPECT_TRUE(answers::bits(one[i].capsule, agents[i].capsule)) << "a crushed agent stays where it was";
      } else {
        EXPECT_TRUE(frame.is_clear(one[i].capsule, 0.5f * settings.skin))
            << "tick " << tick << " agent " << i << " at " << one[i].capsule.a.x << ", " << one[i].capsule.a.y << ", "
            << one[i].capsule.a.z;
      }
      agents[i].capsule = one[i].capsule;  // an ellipsoid agent's: the capsule holding it
      if (agents[i].shape == AgentShape::ellipsoid) agents[i].ellipsoid = one[i].ellipsoid;
      agents[i].vertical_speed = one[i].vertical_speed;
      agents[i].ground_triangle = one[i].ground_triangle;
    }
    check(tick, frame, agents, one);
    if (testing::Test::HasFailure()) break;
  }
  return crushed;
}

TEST(MovingInstances, ALiftCarries500AgentsUpTenMetres) {
  // The lift, a 20 m square slab, rises from the lower floor to the upper one at 3 m/s.
  const std::vector<Triangle> floors =
      testmesh::Mesh().floor(-40, -20, -11, 20, 2).floor(11, -20, 40, 20, 2, 10.f).triangles();
  const std::vector<Triangle> slab = testmesh::Mesh().box({-10, -0.5f, -10}, {10, 0, 10}).triangles();
  const World world(World(floors), {World(slab)}, {Instance{7, 0, Pose{}}});
  std::vector<Agent> agents;
  for (int k = 0; k < 500; ++k) {
    agents.push_back(standing(-9.4f + 0.85f * float(k % 23), 0, -9.4f + 0.85f * float(k / 23), std::uint32_t(k)));
    if (k % 5 == 4) {  // every fifth an ellipsoid of the person's size
      Agent& a = agents.back();
      a.shape = AgentShape::ellipsoid;
      a.ellipsoid = {(a.capsule.a + a.capsule.b) * 0.5f, {0.35f, 0.9f, 0.35f}};
    }
  }
  const auto lift = [](int tick) { return Pose{Vec3d(0, 0.05 * std::min(tick, 200), 0), Quat{}}; };
  std::vector<Agent> end;
  World frame = world;
  std::size_t pushed_out = 0;
  const std::size_t crushed = run(world, 7, agents, 210, lift, [&](int tick, const World& now_frame, const std::vector<Agent>& now,
                                                                   const auto& results) {
    end = now;
    frame = now_frame;
    // Carried, not left for the solver to push out of the floor that rose into them.
    for (const MoveResult& r : results) pushed_out += tick > 0 && (r.flags & kMoveDepenetrated);
  });
  EXPECT_EQ(crushed, 0u);
  EXPECT_EQ(pushed_out, 0u);
  // All arrived: their feet on the lift at 10 m, where they stood across it.
  for (std::size_t i = 0; i < end.size(); ++i) {
    ASSERT_NEAR(end[i].capsule.a.y - 0.35f, 10.f, 0.05f) << "agent " << i;
    EXPECT_NEAR(end[i].capsule.a.x, agents[i].capsule.a.x, 1e-3f) << "agent " << i;
    EXPECT_NE(frame.instance_of(end[i].ground_triangle), nullptr) << "agent " << i << " stands on the lift";
  }
}

TEST(MovingInstances, ALiftRisingIntoACeilingCrushesOnlyWhoIsUnderIt) {
  const std::vector<Triangle> scene = testmesh::Mesh()
                                          .floor(-20, -20, 20, 20, 2, -3.f)
                                          .box({-10, 3.0f, -10}, {0, 3.5f, 10})  // a ceiling over half the lift
                                          .triangles();
  const std::vector<Triangle> slab = testmesh::Mesh().box({-10, -0.5f, -10}, {10, 0, 10}).triangles();
  const World world(World(scene), {World(slab)}, {Instance{1, 0, Pose{}}});
  std::vector<Agent> agents;
  for (int k = 0; k < 40; ++k) agents.push_back(standing(-8.5f + 2.f * float(k % 10), 0, -6.f + 3.f * float(k / 10), std::uint32_t(k)));
  std::vector<Agent> end;
  const std::size_t crushed = run(world, 1, agents, 60, [](int tick) { return Pose{Vec3d(0, 0.05 * tick, 0), Quat{}}; },
                                  [&](int, const World&, const std::vector<Agent>& now, const auto&) { end = now; });
  EXPECT_GT(crushed, 0u);
  for (std::size_t i = 0; i < end.size(); ++i) {
    const bool under = agents[i].capsule.a.x < 0;
    if (under) {
      EXPECT_LT(end[i].capsule.b.y + 0.35f, 3.0f) << "agent " << i << " went into the ceiling";
    } else {
      EXPECT_NEAR(end[i].capsule.a.y - 0.35f, 3.0f, 0.05f) << "agent " << i << " was carried 3 m";
    }
  }
}

TEST(MovingInstances, ADoorClosingOnACrowdPushesOrCrushesIt) {
  const std::vector<Triangle> scene = testmesh::Mesh().floor(-20, -20, 20, 20, 2).box({5, 0, -10}, {6, 3, 10}).triangles();
  const std::vector<Triangle> door = testmesh::Mesh().box({0, 0.02f, -5}, {0.2f, 2.5f, 5}).triangles();
  const World world(World(scene), {World(door)}, {Instance{3, 0, Pose{Vec3d(-3, 0, 0), Quat{}}}});
  std::vector<Agent> agents;
  for (int k = 0; k < 40; ++k) agents.push_back(standing(-2.f + 0.8f * float(k % 8), 0, -4.f + 1.8f * float(k / 8), std::uint32_t(k)));
  double door_x = -3;
  std::size_t pushed = 0;
  std::vector<bool> ever_crushed(agents.size());
  const std::size_t crushed = run(world, 3, agents, 150, [&](int tick) { return Pose{Vec3d(-3 + 0.05 * tick, 0, 0), Quat{}}; },
                                  [&](int tick, const World&, const std::vector<Agent>& now, const auto& results) {
                                    door_x = -3 + 0.05 * (tick + 1);
                                    for (std::size_t i = 0; i < now.size(); ++i) {
                                      if (results[i].flags & kMoveCrushed) ever_crushed[i] = true;
                                      if (ever_crushed[i]) continue;  // the door went through it
                                      pushed += results[i].moved.x > 0.01f;
                                      // Every agent not crushed stays on its side of the door.
                                      EXPECT_GT(now[i].capsule.a.x - 0.35f, door_x + 0.2 - 1e-3) << "tick " << tick << " agent " << i;
                                    }
                                    // Pushed agents push the next ones, never into them.
                                    for (std::size_t i = 0; i < now.size(); ++i) {
                                      for (std::size_t j = i + 1; j < now.size(); ++j) {
                                        EXPECT_FALSE(capsules_overlap(now[i].capsule, now[j].capsule, 1e-4f))
                                            << "tick " << tick << " agents " << i << " and " << j;
                                      }
                                    }
                                  });
  EXPECT_GT(pushed, 100u);
  EXPECT_GT(crushed, 0u) << "the gap left (0.3 m) holds nobody";
}

TEST(MovingInstances, APlatformSpinningAtOneRadianASecondTurnsItsAgents) {
  const std::vector<Triangle> scene = testmesh::Mesh().floor(-20, -20, 20, 20, 2, -2.f).triangles();
  const std::vector<Triangle> disc = testmesh::Mesh().box({-6, -0.5f, -6}, {6, 0, 6}).triangles();
  const World world(World(scene), {World(disc)}, {Instance{9, 0, Pose{}}});
  std::vector<Agent> agents;
  for (int k = 0; k < 12; ++k) {
    const double a = 2 * M_PI * k / 12, r = 1.5 + 0.25 * (k % 4);
    agents.push_back(standing(float(r * std::cos(a)), 0, float(r * std::sin(a)), std::uint32_t(k)));
  }
  const double w = 1.0 / 60;  // rad per tick
  std::vector<Agent> end;
  const std::size_t crushed = run(world, 9, agents, 120,
                                  [&](int tick) { return Pose{Vec3d(), Quat{0, std::sin(w * tick / 2), 0, std::cos(w * tick / 2)}}; },
                                  [&](int, const World&, const std::vector<Agent>& now, const auto&) { end = now; });
  EXPECT_EQ(crushed, 0u);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    // The first tick finds the ground the next 119 carry them on: a turn of 119 / 60 rad about +y,
    // which takes (x, z) to (x cos + z sin, -x sin + z cos).
    const double turn = 119 * w;
    const double x = agents[i].capsule.a.x, z = agents[i].capsule.a.z, c = std::cos(turn), s = std::sin(turn);
    EXPECT_NEAR(end[i].capsule.a.x, x * c + z * s, 0.02) << "agent " << i;
    EXPECT_NEAR(end[i].capsule.a.z, -x * s + z * c, 0.02) << "agent " << i;
    EXPECT_NEAR(end[i].capsule.a.y, agents[i].capsule.a.y, 0.02) << "agent " << i;
  }
}

TEST(MovingInstances, APlatformSlidingIntoAWallLeavesItsAgentAgainstTheWall) {
  const std::vector<Triangle> scene = testmesh::Mesh().floor(-20, -20, 20, 20, 2, -1.f).box({6, 0.5f, -10}, {7, 4, 10}).triangles();
  const std::vector<Triangle> slab = testmesh::Mesh().box({-2, -0.5f, -2}, {2, 0, 2}).triangles();
  const World world(World(scene), {World(slab)}, {Instance{2, 0, Pose{}}});
  const std::vector<Agent> agents{standing(0, 0, 0, 0)};
  float furthest = 0;
  run(world, 2, agents, 160, [](int tick) { return Pose{Vec3d(0.05 * tick, 0, 0), Quat{}}; },
      [&](int tick, const World&, const std::vector<Agent>& now, const auto& results) {
        furthest = std::max(furthest, now[0].capsule.a.x);
        EXPECT_LT(now[0].capsule.a.x + 0.35f, 6.f) << "tick " << tick << ": into the wall";
        EXPECT_FALSE(results[0].flags & kMoveCrushed) << "tick " << tick;
      });
  EXPECT_GT(furthest, 5.5f) << "carried up to the wall";
}

TEST(MovingInstances, ValidationTakesARideOutOfTheClaim) {
  // A 30 m platform sliding at 10 m/s, above the 7 m/s speed limit, and rising at 1 m/s, with 25
  // agents walking on it at 1.5 m/s: each tick's claim (where the agent was, where it ended, its
  // ground triangle) is ok on the tick's frame, the ride taken out as World::move took it. On a
  // still frame at the same poses the same claims are too fast; a claim 0.2 m a tick further
  // than the agent went is too fast on the moving frame too.
  const std::vector<Triangle> scene = testmesh::Mesh().floor(-60, -60, 60, 60, 4, -1.f).triangles();
  const std::vector<Triangle> slab = testmesh::Mesh().box({-15, -0.5f, -15}, {15, 0, 15}).triangles();
  World frame(World(scene), {World(slab)}, {Instance{6, 0, Pose{}}});
  std::vector<Agent> agents;
  for (std::uint32_t i = 0; i < 25; ++i) agents.push_back(standing(-10.f + 4.f * float(i % 5), 0, -10.f + 4.f * float(i / 5), i));
  MoveSettings move;
  ValidateSettings judge;
  judge.movement = move;
  const float dt = 1.f / 60.f;
  std::size_t ok = 0, still_ok = 0, cheats_ok = 0, claims = 0;
  for (int tick = 1; tick <= 120; ++tick) {
    const InstancePose p{6, Pose{Vec3d(10.0 * tick * dt, 1.0 * tick * dt, 0), Quat{}}};
    frame = frame.posed(std::span(&p, 1));
    for (Agent& a : agents) a.displacement = {1.5f * dt, 0, 0.5f * dt};
    std::vector<MoveResult> r(agents.size());
    frame.move(agents, move, r, on_path(SweepPath::simd, 2));
    std::vector<ClaimedMove> honest, cheat;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ClaimedMove c;
      c.from = agents[i].capsule;
      c.motion = r[i].capsule.a - agents[i].capsule.a;
      c.dt = dt;
      c.vertical_speed = agents[i].vertical_speed;
      c.grounded = tick > 1;
      c.ground_triangle = agents[i].ground_triangle;
      honest.push_back(c);
      c.motion += Vec3(0.2f, 0, 0);
      cheat.push_back(c);
      agents[i].capsule = r[i].capsule;
      agents[i].vertical_speed = r[i].vertical_speed;
      agents[i].ground_triangle = r[i].ground_triangle;
    }
    if (tick < 3) continue;  // landed on the platform and carried since
    const World still = frame.posed(std::span(&p, 1));  // the same poses, no motion
    std::vector<Verdict> v(honest.size()), on_still(honest.size()), cheated(honest.size());
    frame.validate(honest, judge, v);
    still.validate(honest, judge, on_still);
    frame.validate(cheat, judge, cheated);
    for (std::size_t i = 0; i < honest.size(); ++i) {
      EXPECT_EQ(v[i].kind, VerdictKind::ok) << "tick " << tick << " agent " << i << ": " << name(v[i].reason);
      ok += v[i].kind == VerdictKind::ok;
      still_ok += on_still[i].kind == VerdictKind::ok;
      cheats_ok += cheated[i].kind == VerdictKind::ok;
      ++claims;
    }
  }
  EXPECT_EQ(ok, claims);
  EXPECT_EQ(still_ok, 0u) << "10 m/s is too fast for a walk";
  EXPECT_EQ(cheats_ok, 0u) << "a ride buys no speed of one's own";
  for (const Agent& a : agents) EXPECT_GT(a.capsule.a.y, 1.5f) << "agent " << a.id << " rode up";
}

TEST(MovingInstances, AHingedDoorSwingingThroughACrowdPushesItAside) {
  // A 4 m door turning a quarter turn about a hinge at the origin in one second: its far edge
  // moves 10 cm a tick, across agents standing in its way; none ends inside it unflagged.
  const std::vector<Triangle> scene = testmesh::Mesh().floor(-20, -20, 20, 20, 2).triangles();
  const std::vector<Triangle> door = testmesh::Mesh().box({0, 0.02f, -0.1f}, {4, 2.5f, 0.1f}).triangles();
  const World world(World(scene), {World(door)}, {Instance{5, 0, Pose{}}});
  std::vector<Agent> agents;
  for (int k = 0; k < 9; ++k) {
    const double a = -0.3 - 0.12 * k, r = 1.2 + 0.3 * (k % 3);  // below the door, in its sweep
    agents.push_back(standing(float(r * std::cos(a)), 0, float(-r * std::sin(a)) + 0.f, std::uint32_t(k)));
  }
  std::size_t pushed = 0;
  const double step = M_PI / 2 / 60;
  run(world, 5, agents, 60, [&](int tick) { return Pose{Vec3d(), Quat{0, std::sin(-step * tick / 2), 0, std::cos(-step * tick / 2)}}; },
      [&](int, const World&, const std::vector<Agent>&, const auto& results) {
        for (const MoveResult& r : results) pushed += length(r.moved) > 0.01f;
      });
  EXPECT_GT(pushed, 20u);
}

TEST(MovingInstances, AFrameWhoseInstancesStandStillMovesAgentsAsBefore) {
  // Posing an instance where it already is, or moving one far from every agent, changes no byte.
  const std::vector<Triangle> scene = testmesh::Mesh().floor(-20, -20, 20, 20, 1).triangles();
  const std::vector<Triangle> crate = testmesh::Mesh().box({-1, 0, -1}, {1, 1, 1}).triangles();
  const World world(World(scene), {World(crate)}, {Instance{4, 0, Pose{Vec3d(15, 0, 15), Quat{}}}});
  std::vector<Agent> agents;
  for (int k = 0; k < 50; ++k) {
    Agent a = standing(-8.f + 0.9f * float(k % 10), 0, -4.f + 0.9f * float(k / 10), std::uint32_t(k));
    a.displacement = {0.03f, 0, 0.02f};
    agents.push_back(a);
  }
  const InstancePose same{4, Pose{Vec3d(15, 0, 15), Quat{}}}, far{4, Pose{Vec3d(16, 0, 15), Quat{}}};
  const MoveSettings settings;
  std::vector<MoveResult> before(agents.size()), after(agents.size()), moved(agents.size());
  world.move(agents, settings, before);
  world.posed(std::span(&same, 1)).move(agents, settings, after);
  world.posed(std::span(&far, 1)).move(agents, settings, moved);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    EXPECT_TRUE(answers::same(before[i], after[i])) << "agent " << i;
    EXPECT_TRUE(answers::same(before[i], moved[i])) << "agent " << i;
  }
}

}  // namespace
