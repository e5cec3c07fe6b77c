// Layer filters on every path and every query kind. A batch filtered to some layers must answer
// exactly what a world built from only the triangles on those layers answers (the same bytes,
// triangle indices mapped back). Masks hide walls, floors, scattered triangles, everything and
// nothing. Whole subtrees of another layer are never walked, and movement and validation honour
// the layers too (snapshots keep them: tests/io/snapshot_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include <capsweep/world.h>
#include "world/world_arrays.h"
#include "world/sweeps.h"
#include "core/random.h"
#include "tests/support/layered_world.h"
#include "tests/support/scene_list.h"
#include "tests/support/scene_queries.h"
#include "tools/arena.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

using layered::layers_for;
using layered::mapped;
using layered::visible;
using layered::Visible;

const std::uint32_t kMasks[] = {1u, 2u, 4u, 8u, 2u | 4u, 1u | 2u | 4u | 8u, kAllLayers, 16u};

class SceneLayers : public testing::TestWithParam<std::string> {};

TEST_P(SceneLayers, AFilteredBatchAnswersAsTheWorldOfItsLayers) {
  const std::vector<Triangle> tris = scenes::load(GetParam());
  const std::vector<std::uint32_t> layers = layers_for(tris);
  const World world(tris, layers);
  for (std::uint32_t i = 0; i < layers.size(); ++i) ASSERT_EQ(world.layers_of(i), layers[i]) << "triangle " << i;
  std::vector<SweepQuery> q;
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    const auto part = make_workload(world, wl, 1500, 51 + std::uint64_t(wl));
    q.insert(q.end(), part.begin(), part.end());
  }
  const auto hard = cases::adversarial_scene_queries(tris, 1500, 55);
  q.insert(q.end(), hard.begin(), hard.end());
  std::vector<SweepEllipsoidQuery> e = make_ellipsoid_workload(world, Workload::long_range, 1500, 56);
  std::vector<Capsule> capsules;
  for (const SweepQuery& s : q) {
    if (s.capsule.radius > 0) capsules.push_back({s.capsule.a + s.motion * 0.5f, s.capsule.b + s.motion * 0.5f, s.capsule.radius});
  }
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  for (std::uint32_t mask : kMasks) {
    SCOPED_TRACE("layers " + std::to_string(mask));
    const Visible v = visible(tris, layers, mask);
    std::vector<SweepHit> expected(q.size()), expected_e(e.size());
    std::vector<OverlapResult> expected_o(capsules.size());
    if (v.world) {
      v.world->sweep(q, expected, on_path(SweepPath::brute));
      v.world->sweep_ellipsoid(e, expected_e, on_path(SweepPath::brute));
      v.world->overlap(capsules, 0.05f, expected_o);
    }
    std::size_t hits = 0;
    for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
      SweepOptions o = on_path(path, path == SweepPath::simd ? 1 : cores);
      o.layers = mask;
      std::vector<SweepHit> got(q.size()), got_e(e.size());
      world.sweep(q, got, o);
      world.sweep_ellipsoid(e, got_e, o);
      for (std::size_t i = 0; i < q.size(); ++i) {
        ASSERT_TRUE(identical(got[i], mapped(expected[i], v))) << name(path) << " query " << i << ": t " << got[i].t
                                                               << " triangle " << got[i].triangle << ", expected t "
                                                               << expected[i].t;
        hits += got[i].hit;
      }
      for (std::size_t i = 0; i < e.size(); ++i) {
        ASSERT_TRUE(identical(got_e[i], mapped(expected_e[i], v))) << name(path) << " ellipsoid " << i;
      }
    }
    SweepOptions o;
    o.layers = mask;
    std::vector<OverlapResult> got_o(capsules.size());
    world.overlap(capsules, 0.05f, got_o, o);
    for (std::size_t i = 0; i < capsules.size(); ++i) {
      ASSERT_EQ(got_o[i].clear, v.world ? expected_o[i].clear : true) << "capsule " << i;
      ASSERT_EQ(got_o[i].overlapping, v.world && expected_o[i].overlapping) << "capsule " << i;
      if (got_o[i].overlapping) {
        ASSERT_EQ(got_o[i].triangle, v.original[expected_o[i].triangle]) << "capsule " << i;
      }
    }
    if (!v.world) {
      EXPECT_EQ(hits, 0u) << "a mask that sees no layer hit something";
    }
    if (v.world && v.original.size() > tris.size() / 4) {
      EXPECT_GT(hits, 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryScene, SceneLayers,
                         testing::ValuesIn(scenes::readable({"@arena", "recast_dungeon.obj", "oa_am_thornish.obj"})),
                         [](const auto& info) { return scenes::test_name(info.param); });

// Two copies of the arena 1 km apart, on layers 1 and 2: a query in the second copy filtered to
// layer 1 walks none of the second copy's subtree.
TEST(Layers, SubtreesOfOtherLayersAreNotWalked) {
  const std::vector<Triangle> arena = make_arena();
  std::vector<Triangle> both = arena;
  std::vector<std::uint32_t> layers(arena.size(), 1u);
  for (Triangle t : arena) {
    for (Vec3& v : t.v) v.x += 1000.f;
    both.push_back(t);
    layers.push_back(2u);
  }
  const World world(both, layers);
  const World second(std::vector<Triangle>(both.begin() + std::ptrdiff_t(arena.size()), both.end()));
  std::uint64_t all = 0, filtered = 0, hits = 0;
  const std::vector<SweepQuery> queries = make_workload(second, Workload::long_range, 500, 3);
  for (const SweepQuery& q : queries) {
    TraversalStats a, f;
    SweepHit h_all, h_filtered;
    sweep_counted(world, q, h_all, SweepPath::simd, a, 1u | 2u);
    sweep_counted(world, q, h_filtered, SweepPath::simd, f, 1u);
    all += a.nodes;
    filtered += f.nodes;
    hits += h_all.hit;
    EXPECT_FALSE(h_filtered.hit);
  }
  EXPECT_GT(hits, 100u);
  // The root's children over the second copy are on layer 2 only: a filtered walk tests the
  // root's child boxes and goes no further (the unfiltered one goes 6-7 nodes deep on average).
  EXPECT_EQ(filtered, queries.size()) << "a walk filtered to layer 1 entered layer 2's subtree";
  EXPECT_GT(all, 3 * queries.size());
}

TEST(Layers, MaskZeroAndAWrongCountAreRefused) {
  const std::vector<Triangle> tris = make_arena();
  std::vector<std::uint32_t> layers(tris.size(), 1u);
  layers[9] = 0;
  try {
    World w(tris, layers);
    FAIL() << "a triangle on no layer was accepted";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("triangle 9: its layer mask is 0"), std::string::npos) << e.what();
  }
  layers.pop_back();
  EXPECT_THROW(World(tris, layers), WorldError);
  // Without layers, every triangle is on layer 1.
  const World plain(tris);
  ASSERT_EQ(plain.triangle_count(), tris.size());
  for (std::uint32_t i = 0; i < tris.size(); ++i) ASSERT_EQ(plain.layers_of(i), kDefaultLayers) << "triangle " << i;
}

// Walls on layer 2, floors on layer 1: an agent that sees only layer 1 walks through a wall,
// one that sees both stops at it, one that sees only layer 2 has no floor and falls.
TEST(Layers, AgentsMoveThroughWhatTheyDoNotSee) {
  const std::vector<Triangle> tris = make_arena();
  std::vector<std::uint32_t> layers(tris.size());
  for (std::size_t i = 0; i < tris.size(); ++i) {
    const Vec3d v0 = to_double(tris[i].v[0]);
    const Vec3d n = cross(to_double(tris[i].v[1]) - v0, to_double(tris[i].v[2]) - v0);
    layers[i] = n.y / length(n) > 0.7 ? 1u : 2u;
  }
  const World world(tris, layers);
  // Standing on the floor near the arena's +x wall (its face at x = 20), walking 1 m into it.
  const Agent walker{{{18.9f, 0.37f, -10.f}, {18.9f, 1.47f, -10.f}, 0.35f}, {1.f, 0.f, 0.f}, 0.f, 1};
  std::vector<MoveResult> r(1);
  auto moved = [&](std::uint32_t mask) {
    BatchOptions o;
    o.layers = mask;
    world.move(std::span(&walker, 1), MoveSettings{}, r, o);
    return r[0];
  };
  const MoveResult both = moved(1u | 2u), floor_only = moved(1u), walls_only = moved(2u);
  EXPECT_LT(both.capsule.a.x, 20.f - 0.35f) << "stopped by the wall";
  EXPECT_TRUE(both.grounded);
  EXPECT_NEAR(floor_only.capsule.a.x, 18.9f + 1.f, 1e-3f) << "walked through the unseen wall";
  EXPECT_TRUE(floor_only.grounded);
  EXPECT_FALSE(walls_only.grounded) << "no floor on layer 2";
  EXPECT_LT(walls_only.capsule.a.y, 0.37f);
  // The validator agrees: the walk is blocked only where the wall is seen (a 1 m walk in a tick:
  // no speed limit, by name).
  const ClaimedMove claim{walker.capsule, walker.displacement, 1.f / 60};
  std::vector<Verdict> verdict(1);
  BatchOptions o;
  o.layers = 1u | 2u;
  ValidateSettings unlimited;
  unlimited.max_speed = kNoSpeedLimit;
  world.validate(std::span(&claim, 1), unlimited, verdict, o);
  EXPECT_EQ(verdict[0].kind, VerdictKind::blocked);
  o.layers = 1u;
  world.validate(std::span(&claim, 1), unlimited, verdict, o);
  EXPECT_EQ(verdict[0].kind, VerdictKind::ok);
}

}  // namespace
