// MoveCache (world/move_cache.h): World::move with each agent's neighbourhood kept between ticks
// gives the bytes World::move gives without one, on every scene, with agents colliding or not,
// capsules and ellipsoids, fast agents that leave their neighbourhood every tick, agents the
// caller teleports, reorders or adds, layered worlds, moving instances and a level 20 km from the
// origin; with neighbourhoods gathered every tick, only on leaving, and forgotten at random.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <capsweep/world.h>

#include "core/random.h"
#include "world/solver_queries.h"
#include "world/sweeps.h"
#include "world/world_arrays.h"
#include "tests/support/layered_world.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include "tools/moving_arena.h"

namespace {

using namespace capsweep;

// Ticks a crowd keeping neighbourhoods and one keeping none from the same settings, and expects
// the same agents and results, bit for bit, after every tick. Returns the kept crowd's counts.
MoveCacheCounts expect_same_crowds(const World& world, CrowdSettings s, int ticks, const std::string& hint) {
  CrowdSettings plain = s;
  plain.keep_neighbourhoods = false;
  s.keep_neighbourhoods = true;
  Crowd kept(world, s), uncached(world, plain);
  for (int t = 0; t < ticks; ++t) {
    kept.tick();
    uncached.tick();
    EXPECT_EQ(kept.agents().size(), uncached.agents().size());
    for (std::size_t i = 0; i < kept.agents().size(); ++i) {
      if (!answers::bits(kept.agents()[i], uncached.agents()[i]) ||
          !answers::same(kept.results()[i], uncached.results()[i])) {
        ADD_FAILURE() << hint << ": agent " << i << " differs at tick " << t;
        return kept.neighbourhoods().counts();
      }
    }
  }
  return kept.neighbourhoods().counts();
}

class MoveCacheScenes : public ::testing::TestWithParam<std::string> {};

// Walking crowds of capsules and ellipsoids meeting each other: neighbourhoods gathered as agents
// leave them (the default), and every tick.
TEST_P(MoveCacheScenes, KeptNeighbourhoodsMoveACrowdAsNoneDo) {
  const World world(scenes::load(GetParam()));
  CrowdSettings s;
  s.agents = 200;
  s.seed = 17;
  s.up_to_capacity = true;
  s.agent_shapes = {AgentShape::capsule, AgentShape::ellipsoid};
  const MoveCacheCounts kept = expect_same_crowds(world, s, 90, GetParam());
  // Most agent-ticks reuse what they kept: the cache is used, not bypassed.
  EXPECT_GT(kept.agent_ticks, 0u);
  EXPECT_LT(kept.gathered * 3, kept.agent_ticks) << GetParam();
  s.neighbourhoods.refresh_ticks = 1;
  const MoveCacheCounts every_tick = expect_same_crowds(world, s, 30, GetParam() + ", gathered every tick");
  EXPECT_EQ(every_tick.gathered, every_tick.agent_ticks);
}

// Agents passing through each other at 12 m/s (20 cm a tick): each leaves its neighbourhood
// within a few ticks, and its walks that leave it mid-tick take the world's tree.
TEST_P(MoveCacheScenes, FastAgentsLeavingTheirNeighbourhoodsMoveAsWithout) {
  const World world(scenes::load(GetParam()));
  CrowdSettings s;
  s.agents = 150;
  s.seed = 23;
  s.up_to_capacity = true;
  s.move.agents_collide = false;
  s.min_speed = s.max_speed = 12.f;
  s.neighbourhoods.margin = 0.1f;
  const MoveCacheCounts kept = expect_same_crowds(world, s, 40, GetParam() + ", fast");
  EXPECT_GT(kept.gathered * 10, kept.agent_ticks) << "fast agents gather often";
}

INSTANTIATE_TEST_SUITE_P(EveryScene, MoveCacheScenes, testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

// The caller's changes between ticks, on inputs taken from a crowd: some agents forgotten at
// random, some teleported (two agents swap bodies), the batch shuffled, agents added; each
// tick's answers with the cache are those of the same inputs without it.
TEST(MoveCache, AgentsTeleportedReorderedForgottenAndAddedGetTheUncachedAnswers) {
  const World world(scenes::load("recast_dungeon.obj"));
  CrowdSettings s;
  s.agents = 300;
  s.seed = 5;
  s.keep_neighbourhoods = false;
  Crowd crowd(world, s);
  MoveCache cache;
  Random rng(99);
  std::vector<MoveResult> with(s.agents), without(s.agents);
  for (int t = 0; t < 60; ++t) {
    crowd.tick();
    std::vector<Agent> agents = crowd.previous();
    if (t % 7 == 3) {  // teleports: bodies swapped between agents far apart
      for (int k = 0; k < 10; ++k) {
        const std::size_t i = rng.below(agents.size()), j = rng.below(agents.size());
        std::swap(agents[i].capsule, agents[j].capsule);
        std::swap(agents[i].ellipsoid, agents[j].ellipsoid);
        agents[i].ground_triangle = agents[j].ground_triangle = kNoTriangle;
      }
    }
    if (t % 11 == 5) {  // the batch in another order: slot i now holds another agent
      std::vector<std::size_t> order(agents.size());
      std::iota(order.begin(), order.end(), std::size_t{0});
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
      std::vector<Agent> shuffled;
      for (std::size_t i : order) shuffled.push_back(agents[i]);
      agents = shuffled;
    }
    if (t == 40) agents.resize(agents.size() / 2);  // fewer agents, then more again
    for (std::size_t i = 0; i < agents.size(); ++i) {
      if (rng.below(10) == 0) cache.forget(i);
    }
    with.resize(agents.size());
    without.resize(agents.size());
    world.move(agents, s.move, with, cache, s.batch);
    world.move(agents, s.move, without, s.batch);
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ASSERT_TRUE(answers::same(with[i], without[i])) << "agent " << i << " at tick " << t;
    }
  }
  const MoveCacheCounts counts = cache.counts();
  EXPECT_GT(counts.gathered, 0u);
  EXPECT_LT(counts.gathered, counts.agent_ticks);
  EXPECT_EQ(counts.uncached, 0u);  // a person's neighbourhood in the dungeon always fits
  cache.reset_counts();
  EXPECT_EQ(cache.counts().agent_ticks, 0u);
  EXPECT_GT(cache.memory_bytes(), 0u);
}

// One cache passed to another world: nothing it kept of the first is walked in the second.
TEST(MoveCache, AnotherWorldStartsEverySlotAfresh) {
  const World dungeon(scenes::load("recast_dungeon.obj"));
  std::vector<Triangle> raised = dungeon.mesh_triangles();
  for (Triangle& t : raised) {
    for (Vec3& v : t.v) v.y += 0.5f;  // the same level half a metre up: the old trees would hit
  }
  const World other(raised);
  CrowdSettings s;
  s.agents = 200;
  s.seed = 8;
  s.keep_neighbourhoods = false;
  Crowd crowd(dungeon, s);
  MoveCache cache;
  for (int t = 0; t < 10; ++t) crowd.tick();
  std::vector<MoveResult> with(s.agents), without(s.agents);
  for (const World* w : {&dungeon, &other, &dungeon}) {
    w->move(crowd.agents(), s.move, with, cache, s.batch);
    w->move(crowd.agents(), s.move, without, s.batch);
    for (std::size_t i = 0; i < with.size(); ++i) ASSERT_TRUE(answers::same(with[i], without[i])) << "agent " << i;
  }
}

// Layers: agents seeing every layer, floors and walls only, and floors with scattered triangles;
// the kept trees filter by the same child layers.
TEST(MoveCache, LayeredWorldsFilterTheKeptTreesAsTheWorldsOwn) {
  const std::vector<Triangle> tris = scenes::load("recast_dungeon.obj");
  const World world(tris, layered::layers_for(tris));
  CrowdSettings s;
  s.agents = 200;
  s.seed = 3;
  s.up_to_capacity = true;
  s.agent_layers = {kAllLayers, 1u | 2u, 1u | 4u | 8u};
  expect_same_crowds(world, s, 60, "layered dungeon");
}

// Moving instances: each tick a new frame of the same static mesh (its neighbourhoods kept), the
// door, lift and gate walked as the world's.
TEST(MoveCache, MovingArenaFramesKeepTheStaticNeighbourhoods) {
  const World world = make_moving_arena();
  CrowdSettings s;
  s.agents = 400;
  s.seed = 5;
  CrowdSettings plain = s;
  auto kept_motion = std::make_shared<ArenaMotion>(), plain_motion = std::make_shared<ArenaMotion>();
  s.poses = [kept_motion](std::uint64_t, std::span<const Agent> agents) { return kept_motion->next(agents); };
  plain.poses = [plain_motion](std::uint64_t, std::span<const Agent> agents) { return plain_motion->next(agents); };
  plain.keep_neighbourhoods = false;
  Crowd kept(world, s), uncached(world, plain);
  for (int t = 0; t < 240; ++t) {
    kept.tick();
    uncached.tick();
    for (std::size_t i = 0; i < kept.agents().size(); ++i) {
      ASSERT_TRUE(answers::bits(kept.agents()[i], uncached.agents()[i]) &&
                  answers::same(kept.results()[i], uncached.results()[i]))
          << "agent " << i << " at tick " << t;
    }
  }
  const MoveCacheCounts counts = kept.neighbourhoods().counts();
  EXPECT_LT(counts.gathered * 3, counts.agent_ticks) << "frames of one static mesh keep their neighbourhoods";
}

// 20 km from the origin, where a float step is 2 mm: the covers() margin and the gathered
// triangles' boxes hold there too.
TEST(MoveCache, ALevelTwentyKilometresOutMovesAsWithout) {
  std::vector<Triangle> tris = scenes::load("recast_dungeon.obj");
  for (Triangle& t : tris) {
    for (Vec3& v : t.v) v = v + Vec3{20000.f, 0.f, -20000.f};
  }
  const World world(tris);
  CrowdSettings s;
  s.agents = 150;
  s.seed = 4;
  s.up_to_capacity = true;
  s.agent_shapes = {AgentShape::capsule, AgentShape::ellipsoid};
  expect_same_crowds(world, s, 60, "dungeon 20 km out");
}

// The walks themselves: sweeps (capsules and ellipsoids) and overlaps from an agent's copy of the
// arrays, its neighbourhood gathered around a region smaller or larger than the sweep, give the
// world's answers whether the walk stays inside (the kept tree) or leaves (the world's tree).
TEST(KeptNeighbourhood, WalksInsideAndOutsideItsRegionGetTheWorldsAnswers) {
  const World world(scenes::load("recast_dungeon.obj"));
  const std::vector<Triangle> tris = world.mesh_triangles();
  Random rng(41);
  int inside = 0, outside = 0;
  for (int n = 0; n < 3000; ++n) {
    const Triangle& t = tris[rng.below(tris.size())];
    const Vec3 at = (t.v[0] + t.v[1] + t.v[2]) * (1.f / 3.f) +
                    Vec3{float(rng.uniform(-0.5, 0.5)), float(rng.uniform(0.0, 0.6)), float(rng.uniform(-0.5, 0.5))};
    const Capsule c{at, at + Vec3{0, float(rng.uniform(0, 1.1)), 0}, float(rng.uniform(0.1, 0.4))};
    const Vec3 d{float(rng.uniform(-1, 1)), float(rng.uniform(-0.6, 0.3)), float(rng.uniform(-1, 1))};
    const float margin = float(rng.uniform(0.0, 1.0));
    const Aabb box = bounds(Triangle{{c.a, c.b, c.a}});
    const Aabb region{box.min - Vec3{margin, margin, margin}, box.max + Vec3{margin, margin, margin}};
    NearLeaves near;
    if (!near.gather(world.arrays().bvh, world.arrays().layers, world.arrays().mesh_layers, region)) continue;
    WorldArrays kept = world.arrays();
    kept.near = &near;
    (near.covers(make_swept_box(c, d)) ? inside : outside)++;
    SweepHit mine, theirs;
    ASSERT_EQ(sweep_approaching(kept, {c, d}, mine), sweep_approaching(world, {c, d}, theirs));
    ASSERT_TRUE(answers::same(mine, theirs)) << "capsule sweep " << n;
    const SweepEllipsoidQuery e{{(c.a + c.b) * 0.5f, {c.radius, c.radius + 0.3f, c.radius}}, d};
    ASSERT_EQ(sweep_ellipsoid_approaching(kept, e, mine), sweep_ellipsoid_approaching(world, e, theirs));
    ASSERT_TRUE(answers::same(mine, theirs)) << "ellipsoid sweep " << n;
    Contact k_mine, k_theirs;
    std::uint32_t t_mine = kNoTriangle, t_theirs = kNoTriangle;
    const Capsule grown{c.a, c.b, c.radius + margin * 0.5f};
    ASSERT_EQ(deepest_overlap_unchecked(kept, grown, k_mine, t_mine),
              deepest_overlap_unchecked(world.arrays(), grown, k_theirs, t_theirs));
    ASSERT_EQ(t_mine, t_theirs);
    ASSERT_TRUE(t_mine == kNoTriangle || answers::same(k_mine, k_theirs)) << "overlap " << n;
  }
  EXPECT_GT(inside, 300);
  EXPECT_GT(outside, 300);
}

}  // namespace
