// The navigating crowd: agents reach goals up stairs, across a bridge and around a pillar on
// the shared scenes; an unreachable goal is no_path, an agent off the mesh walks back or stays;
// the tick is bit-identical on 1 and 2 threads and in any agent order; the movement invariants
// hold on every scene.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include <capsweep/files.h>
#include <capsweep/navigation.h>

#include "tools/nav_run.h"
#include "tools/workloads.h"

namespace capsweep {
namespace {

const Capsule kPerson{{0, kPersonRadius, 0}, {0, kPersonRadius + kPersonAxis, 0}, kPersonRadius};

struct Level {
  World world;
  NavMesh navmesh;
};

const Level& level(const std::string& name) {
  static std::map<std::string, Level> levels;
  auto it = levels.find(name);
  if (it == levels.end()) {
    World world(load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/" + name));
    NavMesh navmesh = NavMesh::build(world, navmesh_settings(MoveSettings{}, kPerson));
    it = levels.emplace(name, Level{std::move(world), std::move(navmesh)}).first;
  }
  return it->second;
}

Vec3 feet(const Capsule& c) { return {c.a.x, c.a.y - c.radius, c.a.z}; }
float horizontal(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.z - b.z); }

// One agent from `from` to `to` (both feet, on the level), ticked until it arrives or `ticks`
// pass; `each` sees the crowd after every tick.
template <class Each>
NavStatus walk(const Level& l, const Vec3& from, const Vec3& to, int ticks, Each&& each) {
  Capsule body;
  EXPECT_TRUE(stand_at(l.world, from, MoveSettings{}, body));
  NavCrowdSettings s;
  s.batch.threads = 1;
  NavCrowd crowd(l.world, l.navmesh, s);
  crowd.add(body, 1.5f, 7);
  crowd.set_goal(0, to);
  for (int t = 0; t < ticks && crowd.agents()[0].status != NavStatus::arrived; ++t) {
    crowd.tick();
    each(crowd);
  }
  return crowd.agents()[0].status;
}

// Recast's dungeon: the stair from the hall at y = 5 up to the gallery at y = 7 (ten risers).
TEST(NavCrowd, ReachesAGoalUpAStaircase) {
  const Level& l = level("recast_dungeon.obj");
  int stepped = 0;
  const Vec3 goal{-17.32f, 7.03f, -15.27f};
  float end_y = 0;
  const Vec3 start{-18.33f, 5.01f, -10.80f};
  const NavStatus s = walk(l, start, goal, 600, [&](const NavCrowd& c) {
    stepped += (c.results()[0].flags & kMoveSteppedUp) ? 1 : 0;
    end_y = feet(c.agents()[0].capsule).y;
  });
  EXPECT_EQ(s, NavStatus::arrived);
  EXPECT_GE(stepped, 5);                // it climbed steps, not a ramp
  EXPECT_GT(end_y, start.y + 1.5f);     // and is most of the way up (it arrives within 0.4 m)
}

// Whether walkable ground lies 1.5 m or more below the floor an agent stands on: a thin probe
// from 0.3 m under its feet (inside or under the deck) down to the first upward face.
bool over_a_drop(const World& world, const Vec3& f) {
  const Vec3 start = f - Vec3{0, 0.3f, 0};
  const SweepQuery down{{start, start, 0.05f}, {0, -30, 0}};
  SweepHit hit;
  world.sweep_one(down, hit);
  return hit.hit && hit.t * 30 > 1.5f && hit.normal.y > 0.7f;
}

// The dungeon's bridge, in its cave: part of the way (a second or longer) on a deck with walkable
// ground 1.5 m or more below it, part of the way (as long) on ground with nothing beneath.
TEST(NavCrowd, ReachesAGoalAcrossABridge) {
  const Level& l = level("recast_dungeon.obj");
  std::vector<bool> over;
  const NavStatus s = walk(l, {16.10f, 21.40f, -86.11f}, {27.75f, 21.85f, -82.51f}, 900, [&](const NavCrowd& c) {
    over.push_back(over_a_drop(l.world, feet(c.agents()[0].capsule)));
  });
  EXPECT_EQ(s, NavStatus::arrived);
  ASSERT_GT(over.size(), 60u);
  EXPECT_GE(std::count(over.begin(), over.end(), true), 60);
  EXPECT_GE(std::count(over.begin(), over.end(), false), 60);
}

// Recast's test level: a pillar stands on the straight line between the two points; the agent
// walks around it (its trail leaves the line by more than its radius) and arrives.
TEST(NavCrowd, ReachesAGoalAroundAPillar) {
  const Level& l = level("recast_nav_test.obj");
  const Vec3 from{-1.47f, -2.35f, -3.62f}, to{2.12f, -2.32f, 2.83f};
  Capsule body;
  ASSERT_TRUE(stand_at(l.world, from, MoveSettings{}, body));
  SweepQuery straight{body, Vec3{to.x - from.x, 0, to.z - from.z}};
  SweepHit hit;
  l.world.sweep_one(straight, hit);
  ASSERT_TRUE(hit.hit && hit.t < 1 && std::fabs(hit.normal.y) < 0.3f);  // a wall is in the way
  const Vec3 line = Vec3{to.x - from.x, 0, to.z - from.z} * (1.f / horizontal(to, from));
  float widest = 0;
  const NavStatus s = walk(l, from, to, 600, [&](const NavCrowd& c) {
    const Vec3 d = feet(c.agents()[0].capsule) - from;
    widest = std::max(widest, std::fabs(d.x * line.z - d.z * line.x));
  });
  EXPECT_EQ(s, NavStatus::arrived);
  EXPECT_GT(widest, kPersonRadius);
}

void quad(std::vector<Triangle>& out, Vec3 a, Vec3 b, Vec3 c, Vec3 d) {
  out.push_back({{a, b, c}});
  out.push_back({{a, c, d}});
}

// Two 10 x 10 m floors 5 m apart; on the first a 1 x 1 m pedestal 0.6 m high (too high to
// climb, too small to stand on for the navmesh), and 20 m away a ledge 5 m up, as small.
World islands() {
  std::vector<Triangle> t;
  quad(t, {0, 0, 0}, {0, 0, 10}, {10, 0, 10}, {10, 0, 0});
  quad(t, {15, 0, 0}, {15, 0, 10}, {25, 0, 10}, {25, 0, 0});
  auto box = [&](Vec3 lo, Vec3 hi) {
    quad(t, {lo.x, hi.y, lo.z}, {lo.x, hi.y, hi.z}, {hi.x, hi.y, hi.z}, {hi.x, hi.y, lo.z});
    quad(t, {lo.x, lo.y, lo.z}, {lo.x, hi.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, lo.y, lo.z});
    quad(t, {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z});
    quad(t, {lo.x, lo.y, lo.z}, {lo.x, lo.y, hi.z}, {lo.x, hi.y, hi.z}, {lo.x, hi.y, lo.z});
    quad(t, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {hi.x, hi.y, hi.z}, {hi.x, lo.y, hi.z});
  };
  box({4.5f, 0, 4.5f}, {5.5f, 0.6f, 5.5f});
  box({40, 4, 4.5f}, {41, 5, 5.5f});
  return World(std::move(t));
}

TEST(NavCrowd, AnUnreachableGoalIsNoPathAndTheAgentWaits) {
  const World world = islands();
  const NavMesh mesh = NavMesh::build(world, navmesh_settings(MoveSettings{}, kPerson), 1);
  Capsule body;
  ASSERT_TRUE(stand_at(world, {2, 0, 2}, MoveSettings{}, body));
  NavCrowd crowd(world, mesh, NavCrowdSettings{});
  crowd.add(body, 1.5f, 1);
  crowd.set_goal(0, {20, 0, 5});  // the other floor: no polygon joins them
  for (int t = 0; t < 30; ++t) ASSERT_NO_THROW(crowd.tick());
  EXPECT_EQ(crowd.agents()[0].status, NavStatus::no_path);
  // It waits where it stood (settled onto the floor by the solver, not walking).
  EXPECT_EQ(crowd.agents()[0].capsule.a.x, body.a.x);
  EXPECT_EQ(crowd.agents()[0].capsule.a.z, body.a.z);
  EXPECT_EQ(length(crowd.agents()[0].velocity), 0.f);
  crowd.set_goal(0, {8, 0, 8});  // a goal on its own floor: it goes
  for (int t = 0; t < 400 && crowd.agents()[0].status != NavStatus::arrived; ++t) crowd.tick();
  EXPECT_EQ(crowd.agents()[0].status, NavStatus::arrived);
}

// Off the mesh (docs/NAVIGATION.md): on the pedestal the nearest polygon is within return_reach,
// so the agent walks straight to it (off_mesh, returning), steps off, lands, and walks to its
// goal; on the ledge 5 m up nothing is within reach: it stays where it is (off_mesh, not returning).
TEST(NavCrowd, AnAgentOffTheMeshWalksBackOrStaysAsDocumented) {
  const World world = islands();
  const NavMesh mesh = NavMesh::build(world, navmesh_settings(MoveSettings{}, kPerson), 1);
  Capsule on_pedestal, on_ledge;
  ASSERT_TRUE(stand_at(world, {5, 0.6f, 5}, MoveSettings{}, on_pedestal));
  ASSERT_TRUE(stand_at(world, {40.5f, 5, 5}, MoveSettings{}, on_ledge));
  NavCrowd crowd(world, mesh, NavCrowdSettings{});
  crowd.add(on_pedestal, 1.5f, 1);
  crowd.add(on_ledge, 1.5f, 2);
  crowd.set_goal(0, {1, 0, 1});
  crowd.set_goal(1, {1, 0, 9});
  crowd.tick();
  EXPECT_EQ(crowd.agents()[0].status, NavStatus::off_mesh);
  EXPECT_TRUE(crowd.agents()[0].returning);
  EXPECT_EQ(crowd.agents()[1].status, NavStatus::off_mesh);
  EXPECT_FALSE(crowd.agents()[1].returning);
  bool walked = false;
  for (int t = 0; t < 600 && crowd.agents()[0].status != NavStatus::arrived; ++t) {
    crowd.tick();
    walked = walked || crowd.agents()[0].status == NavStatus::walking;
  }
  EXPECT_TRUE(walked);
  EXPECT_EQ(crowd.agents()[0].status, NavStatus::arrived);
  EXPECT_EQ(crowd.agents()[1].status, NavStatus::off_mesh);
  EXPECT_EQ(crowd.agents()[1].capsule.a.x, on_ledge.a.x);
  EXPECT_EQ(crowd.agents()[1].capsule.a.z, on_ledge.a.z);
  EXPECT_NEAR(crowd.agents()[1].capsule.a.y, on_ledge.a.y, 0.02f);
}

// 200 agents on the dungeon: the same bytes, tick by tick, on 1 and 2 threads and with the
// agents given in reverse order.
TEST(NavCrowd, TracesAreBitIdenticalOnOneAndTwoThreadsAndInAnyOrder) {
  const Level& l = level("recast_dungeon.obj");
  constexpr std::size_t kAgents = 200;
  const std::vector<Capsule> bodies = spawn_on_navmesh(l.world, l.navmesh, MoveSettings{}, kAgents, 5);
  std::vector<Vec3> goals(kAgents);
  for (std::size_t i = 0; i < kAgents; ++i) ASSERT_TRUE(l.navmesh.random_reachable(feet(bodies[i]), 100 + i, goals[i]));
  auto crowd = [&](int threads, bool reversed) {
    NavCrowdSettings s;
    s.batch.threads = threads;
    s.trace = true;
    auto c = std::make_unique<NavCrowd>(l.world, l.navmesh, s);
    for (std::size_t k = 0; k < kAgents; ++k) {
      const std::size_t i = reversed ? kAgents - 1 - k : k;
      c->add(bodies[i], 1.0f + 0.005f * float(i), std::uint32_t(i));
      c->set_goal(k, goals[i]);
    }
    return c;
  };
  auto a = crowd(1, false), b = crowd(2, true);
  std::size_t arrived = 0;
  for (int t = 0; t < 90; ++t) {
    a->tick();
    b->tick();
    for (std::size_t i = 0; i < kAgents; ++i) {
      const NavAgent& x = a->agents()[i];
      const NavAgent& y = b->agents()[kAgents - 1 - i];
      ASSERT_EQ(x.id, y.id);
      ASSERT_EQ(0, std::memcmp(&x.capsule, &y.capsule, sizeof x.capsule)) << "agent " << i << " tick " << t;
      ASSERT_EQ(0, std::memcmp(&x.velocity, &y.velocity, sizeof x.velocity));
      ASSERT_EQ(x.status, y.status);
      const MoveSegments& p = a->segments()[i];
      const MoveSegments& q = b->segments()[kAgents - 1 - i];
      ASSERT_EQ(p.count, q.count);
      ASSERT_EQ(0, std::memcmp(p.segment, q.segment, sizeof(MoveSegments::Segment) * std::size_t(p.count)));
      if (t == 89) arrived += x.status == NavStatus::arrived;
    }
  }
  // They went somewhere: most are on their way or there.
  std::size_t moving = 0;
  for (const NavAgent& x : a->agents()) moving += length(x.velocity) > 0.5f || x.status == NavStatus::arrived;
  EXPECT_GT(moving + arrived, kAgents / 2);
}

// The movement invariants of today's crowds, on every shared Recast scene: no agent-tick inside
// the skin, no overlapping pair, no travelled segment through a triangle; and goals get reached.
TEST(NavCrowd, MovementInvariantsHoldOnEveryScene) {
  for (const char* scene : {"recast_nav_test.obj", "recast_dungeon.obj", "recast_undulating.obj"}) {
    SCOPED_TRACE(scene);
    const Level& l = level(scene);
    NavRunSettings s;
    s.agents = 150;
    s.seed = 3;
    s.crowd.trace = true;
    NavRun run(l.world, l.navmesh, s);
    for (int t = 0; t < 300; ++t) run.tick();
    const NavRunTotals& total = run.totals();
    EXPECT_EQ(total.penetrating, 0u);
    EXPECT_EQ(total.overlapping, 0u);
    EXPECT_GT(total.segments, 150u * 100u);
    EXPECT_EQ(total.crossing_segments, 0u);
    EXPECT_GE(total.goals_reached, 3u);
    EXPECT_EQ(total.goals_given_up, 0u);
  }
}

}  // namespace
}  // namespace capsweep
