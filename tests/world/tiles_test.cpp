// Streamed tiles (issue 37): meshes (and heightfields, as meshes) placed at their origins and
// published as frames answer every query kind, on every path, exactly as the world with their
// triangles baked in (origin + vertex in double, rounded once, after the static part's and the
// instances', tile after tile by id), 1 m, 20 km and 990 km from the origin; frames keep their
// tiles while newer ones drop them; a removed tile's memory goes with its last frame; agents
// walk across tile borders while tiles stream in ahead and out behind; bad tiles are refused by
// name with nothing applied.
#include <gtest/gtest.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <thread>
#include <set>

#include <capsweep/tiles.h>
#include <capsweep/world.h>
#include "core/random.h"
#include "tests/support/baked_worlds.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_queries.h"
#include "tests/support/terrains.h"
#include "tests/support/test_meshes.h"
#include "tools/workloads.h"

// Whether AddressSanitizer's allocator holds the memory (g++ says so with __SANITIZE_ADDRESS__,
// clang 14 with __has_feature): then mallinfo2 sees none of it.
#if defined(__SANITIZE_ADDRESS__)
#define CAPSWEEP_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CAPSWEEP_UNDER_ASAN 1
#endif
#endif

#if CAPSWEEP_UNDER_ASAN
// The sanitizer runtime's count (its header is clang's; g++ ships the function, not the header).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace {

using namespace capsweep;

// A tile's mesh in its own frame: 20 m of floor with a box, a ramp and a wall, varied by seed.
std::vector<Triangle> tile_mesh(std::uint64_t seed) {
  Random rng(seed);
  const float x = float(rng.uniform(3, 12)), z = float(rng.uniform(3, 12));
  return testmesh::Mesh()
      .floor(0, 0, 20, 20, 2.5f)
      .box({x, 0, z}, {x + 2, float(rng.uniform(0.5, 3)), z + 3})
      .ramp(2, 15, 3, float(rng.uniform(10, 40)), 1.5f, 2)
      .wall(16, 2, 16, 9, 2.5f)
      .triangles();
}

struct TileSpec {
  Vec3d origin;
  std::vector<Triangle> mesh;
  std::uint32_t layers = kDefaultLayers;
};

// A static part, instances, and tiles by id; and the same triangles baked into one world.
struct Scene {
  std::vector<Triangle> static_part;
  std::vector<Triangle> door = testmesh::Mesh().box({-1, 0, -0.1f}, {1, 2.2f, 0.1f}).triangles();
  std::vector<Instance> instances;
  std::map<std::uint32_t, TileSpec> tiles;

  World unstreamed() const {
    return instances.empty() ? World(static_part) : World(World(static_part), {World(door)}, instances);
  }
  std::vector<Tile> built(const std::vector<std::uint32_t>& ids) const {
    std::vector<Tile> out;
    for (std::uint32_t id : ids) out.push_back(Tile{id, tiles.at(id).origin, tiles.at(id).layers, World(tiles.at(id).mesh)});
    return out;
  }
  World baked() const {
    std::vector<Triangle> tris = static_part;
    std::vector<std::uint32_t> layers(tris.size(), kDefaultLayers);
    for (const Instance& in : instances) {
      for (const Triangle& t : door) tris.push_back(placed(in.pose, t)), layers.push_back(in.layers);
    }
    for (const auto& [id, tile] : tiles) {
      for (const Triangle& t : tile.mesh) tris.push_back(placed(Pose{tile.origin, Quat{}}, t)), layers.push_back(tile.layers);
    }
    return World(tris, layers);
  }
};

Scene make_scene(const Vec3d& offset, std::uint64_t seed) {
  Scene s;
  s.static_part = moved(testmesh::Mesh().box({-1, 0, -1}, {1, 4, 1}).wall(-18, 19, 18, 19, 3).triangles(), offset);
  Random rng(seed);
  for (std::uint32_t k = 0; k < 6; ++k) {
    const double z = rng.uniform(-15, 15), x = rng.uniform(-15, 15);  // in drawn_point's order
    s.instances.push_back(Instance{100 + k, 0, Pose{offset + Vec3d(x, 0, z), random_rotation(rng)}, k % 2 ? 1u : 2u});
  }
  // A 2 x 2 grid of tiles around the origin (ids out of order), one overlapping two of them and
  // the static part, and a heightfield's tile.
  const std::uint32_t ids[4] = {40, 7, 23, 11};
  for (int k = 0; k < 4; ++k) {
    s.tiles[ids[k]] = TileSpec{offset + Vec3d(k % 2 ? 0.0 : -20.0, 0, k / 2 ? 0.0 : -20.0), tile_mesh(seed + std::uint64_t(k)),
                               k == 1 ? 2u : 1u};
  }
  s.tiles[31] = TileSpec{offset + Vec3d(-7.25, 0.5, -3.5), tile_mesh(seed + 9), 3u};
  terrains::Options hills;
  hills.columns = 21, hills.rows = 17, hills.origin = {0, 0, 0}, hills.seed = seed;
  hills.holes = true;
  const Tile grid = heightfield_tile(5, offset + Vec3d(-10, -1, 4), terrains::generate(hills));
  s.tiles[5] = TileSpec{grid.origin, grid.mesh.mesh_triangles(), 1u};
  return s;
}

std::vector<std::uint32_t> ids_of(const Scene& s) {
  std::vector<std::uint32_t> ids;
  for (const auto& [id, tile] : s.tiles) ids.push_back(id);
  std::reverse(ids.begin(), ids.end());  // added in any order
  return ids;
}

std::vector<SweepQuery> queries_for(const World& baked, bool workloads, std::uint64_t seed) {
  return baked_queries(baked, workloads, seed, 200, 1200);
}

void expect_same_triangles(const World& world, const World& baked) {
  ASSERT_EQ(world.triangle_count(), baked.triangle_count());
  for (std::uint32_t i = 0; i < baked.triangle_count(); ++i) {
    ASSERT_TRUE(answers::bits(world.triangle(i), baked.triangle(i))) << "triangle " << i;
    ASSERT_EQ(world.layers_of(i), baked.layers_of(i)) << "triangle " << i;
  }
}

class TilesFar : public testing::TestWithParam<double> {};

TEST_P(TilesFar, AnswerAsTheBakedWorldOnEveryPath) {
  const Vec3d offset(GetParam(), 0.25 * GetParam(), -GetParam());
  const Scene s = make_scene(offset, 3);
  const World world = s.unstreamed().streamed(s.built(ids_of(s)));
  const World baked = s.baked();
  expect_same_triangles(world, baked);
  // (A person cannot stand 2 cm clear 990 km out, where a float steps by 6 cm: cases only.)
  expect_answers_as_baked(world, baked, queries_for(baked, GetParam() < 1e5, 17));
}

INSTANTIATE_TEST_SUITE_P(Offsets, TilesFar, testing::Values(1.0, 2.0e4, 9.9e5));

TEST(Tiles, FramesComeAndGoWhileOlderFramesKeepTheirTiles) {
  Scene s = make_scene({}, 4);
  s.instances.clear();  // tiles over a static world alone: it becomes the static part
  const Scene all = s;
  const World start = s.unstreamed();
  const World full = start.streamed(all.built({7, 40, 11}));
  // The same tiles in another order and other calls: the same triangles, in the order of the ids.
  const World again = start.streamed(all.built({11})).streamed(all.built({40, 7}));
  expect_same_triangles(again, full);
  // Removed, replaced (removed and added under its id in one call), added.
  s.tiles = {{7, all.tiles.at(7)}, {11, all.tiles.at(31)}, {23, all.tiles.at(23)}};
  const std::uint32_t gone[] = {40, 11};
  std::vector<Tile> in = all.built({23});
  in.push_back(build_tile(11, all.tiles.at(31).origin, all.tiles.at(31).mesh, all.tiles.at(31).layers, 1));  // on one core
  const World next = full.streamed(in, gone);
  const World next_baked = s.baked();
  expect_same_triangles(next, next_baked);
  expect_answers_as_baked(next, next_baked, queries_for(next_baked, true, 5));
  // The frame before keeps its tiles and its answers.
  Scene before = all;
  before.tiles = {{7, all.tiles.at(7)}, {11, all.tiles.at(11)}, {40, all.tiles.at(40)}};
  expect_same_triangles(full, before.baked());
  // Who holds what.
  ASSERT_EQ(next.tiles().size(), 3u);
  EXPECT_EQ(next.tiles()[0].id, 7u);
  EXPECT_EQ(next.tiles()[1].id, 11u);
  EXPECT_EQ(next.tiles()[2].id, 23u);
  const std::uint32_t first = std::uint32_t(s.static_part.size());
  EXPECT_EQ(next.tile_of(first - 1), nullptr);
  EXPECT_EQ(next.tile_of(first)->id, 7u);
  EXPECT_EQ(next.tile_of(std::uint32_t(next.triangle_count() - 1))->id, 23u);
  EXPECT_EQ(next.instance_of(first), nullptr);
  EXPECT_EQ(next.tile_of(std::uint32_t(next.triangle_count())), nullptr);
  const WorldStats st = next.stats();
  EXPECT_EQ(st.tiles, 3u);
  EXPECT_EQ(st.instances, 0u);
  EXPECT_EQ(st.tile_triangles, next.triangle_count() - first);
  // Removing every tile leaves the static part's answers.
  const std::uint32_t every[] = {7, 11, 23};
  const World bare = next.streamed({}, every);
  EXPECT_EQ(bare.triangle_count(), start.triangle_count());
  const std::vector<SweepQuery> q = queries_for(World(s.static_part), false, 8);
  std::vector<SweepHit> a(q.size()), b(q.size());
  bare.sweep(q, a);
  start.sweep(q, b);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(a[i], b[i])) << "query " << i;
}

TEST(Tiles, InstancesKeepTheirIndicesAndPosesAcrossStreaming) {
  const Scene s = make_scene({}, 6);
  const World world = s.unstreamed().streamed(s.built({7, 23}));
  std::vector<InstancePose> poses;
  for (const Instance& in : s.instances) poses.push_back({in.id, Pose{in.pose.position + Vec3d(0.5, 0, 0), in.pose.rotation}});
  // Posing keeps the tiles; streaming keeps the poses and records no motion.
  const World posed = world.posed(poses);
  ASSERT_EQ(posed.tiles().size(), 2u);
  const World streamed = posed.streamed(s.built({40}));
  Scene expected = s;
  for (std::size_t k = 0; k < poses.size(); ++k) expected.instances[k].pose = poses[k].pose;
  expected.tiles = {{7, s.tiles.at(7)}, {23, s.tiles.at(23)}, {40, s.tiles.at(40)}};
  expect_same_triangles(streamed, expected.baked());
  const std::uint32_t first = std::uint32_t(s.static_part.size());
  const std::uint32_t tiles_first = first + std::uint32_t(s.instances.size() * s.door.size());
  for (std::uint32_t i = first; i < streamed.triangle_count(); ++i) {
    if (i < tiles_first) {
      ASSERT_NE(streamed.instance_of(i), nullptr) << i;
      EXPECT_EQ(streamed.instance_of(i)->id, posed.instance_of(i)->id) << i;
      EXPECT_EQ(streamed.tile_of(i), nullptr) << i;
    } else {
      ASSERT_NE(streamed.tile_of(i), nullptr) << i;
      EXPECT_EQ(streamed.instance_of(i), nullptr) << i;
    }
  }
  // A tile is not an instance: it cannot be posed.
  const InstancePose tile_pose{7, Pose{}};
  EXPECT_THROW((void)streamed.posed(std::span(&tile_pose, 1)), WorldError);
}

void expect_refused(const World& world, std::span<const Tile> added, std::span<const std::uint32_t> removed,
                    const std::string& says) {
  try {
    (void)world.streamed(added, removed);
    ADD_FAILURE() << "accepted; expected: " << says;
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(Tiles, BadTilesAreRefusedByNameWithNothingApplied) {
  const Scene s = make_scene({}, 7);
  const World world = s.unstreamed().streamed(s.built({7, 23}));
  const std::vector<Triangle> mesh = tile_mesh(1);
  const Tile good{50, {}, kDefaultLayers, World(mesh)};
  auto with = [&](auto change) {
    Tile t = good;
    t.id = 51;
    change(t);
    return std::vector<Tile>{good, t};
  };
  const std::uint32_t none[] = {8};
  expect_refused(world, {}, none, "removed tile 8 (row 0): the world has no tile of that id");
  const std::uint32_t twice[] = {7, 23, 7};
  expect_refused(world, {}, twice, "removed tile 7 (row 2): removed twice, first in row 0");
  expect_refused(world, with([](Tile& t) { t.id = 23; }), {}, "added tile 23 (row 1): the id is in use");
  expect_refused(world, with([](Tile& t) { t.id = 50; }), {}, "added tile 50 (row 1): added twice, first in row 0");
  expect_refused(world, with([](Tile& t) { t.layers = 0; }), {}, "added tile 51 (row 1): its layer mask is 0");
  expect_refused(world, with([](Tile& t) { t.origin.y = NAN; }), {}, "its origin is not finite");
  expect_refused(world, with([](Tile& t) { t.origin.x = 2e6; }), {}, "its origin is beyond 1e6 m");
  expect_refused(world, with([](Tile& t) { t.origin.x = 999995; }), {}, "tile 51: placed, its triangles reach beyond 1e6 m");
  terrains::Options small;
  small.columns = 5, small.rows = 5;
  expect_refused(world, with([&](Tile& t) { t.mesh = World(terrains::generate(small)); }), {},
                 "its mesh has a heightfield (heightfield_tile makes a tile of one)");
  expect_refused(world, with([&](Tile& t) { t.mesh = world; }), {}, "its mesh is a world with instances or tiles");
  // Nothing applied: the world holds what it held, and a good call after the refusals works.
  ASSERT_EQ(world.tiles().size(), 2u);
  const std::uint32_t replaced[] = {23};
  const Tile again{23, {}, kDefaultLayers, World(mesh)};
  EXPECT_EQ(world.streamed(std::span(&again, 1), replaced).tiles().size(), 2u);
  // A heightfield of holes alone makes no tile.
  terrains::Options holes;
  holes.columns = 2, holes.rows = 2;
  Heightfield hole = terrains::generate(holes);
  hole.holes.assign(1, 1);
  EXPECT_THROW((void)heightfield_tile(1, {}, hole), WorldError);
  EXPECT_THROW((void)build_tile(1, {}, mesh, kDefaultLayers, -1), std::invalid_argument);
  EXPECT_THROW((void)build_tile(1, {}, {}, kDefaultLayers, 1), WorldError);
}

TEST(Tiles, BatchesOnFramesStreamedAndPosedMeanwhileAnswerAgainstOneFrame) {
  // One thread publishes frames, each posing the instances and streaming tiles in and out, while
  // two others answer batches on whichever frame was latest: every batch equals the answers of
  // exactly the frame it took (run under ThreadSanitizer by tests/sanitize.sh).
  const Scene s = make_scene({}, 9);
  const World base = s.unstreamed();
  const std::vector<SweepQuery> q = queries_for(s.baked(), false, 13);
  constexpr int kFrames = 5;
  const std::vector<Tile> library = s.built(ids_of(s));  // 6 tiles
  // Frame f: the instances turned by f, tile f (its marker, first by id: ids 0-4) and every
  // other tile of the library from f on.
  auto frame_of = [&](int f) {
    std::vector<InstancePose> poses;
    for (const Instance& in : s.instances) poses.push_back({in.id, Pose{in.pose.position, about_y(0.7 * f)}});
    std::vector<Tile> tiles{Tile{std::uint32_t(f), Vec3d(0, 0.1 * f, 0), kDefaultLayers, library[std::size_t(f)].mesh}};
    for (std::size_t k = std::size_t(f); k < library.size(); k += 2) tiles.push_back(library[k]);
    return base.posed(poses).streamed(tiles);
  };
  std::vector<std::vector<SweepHit>> expected;
  for (int f = 0; f < kFrames; ++f) {
    expected.emplace_back(q.size());
    frame_of(f).sweep(q, expected.back(), on_path(SweepPath::scalar, 1));
  }
  LatestFrame latest(frame_of(0));
  std::atomic<int> published{0}, batches{0}, wrong{0};
  std::atomic<bool> done{false};
  auto answer = [&] {
    while (!done.load()) {
      const std::shared_ptr<const World> frame = latest.load();
      const std::uint32_t f = frame->tiles()[0].id;
      if (f >= std::uint32_t(kFrames)) {
        ++wrong;  // a frame that is none of those published
        continue;
      }
      std::vector<SweepHit> got(q.size());
      frame->sweep(q, got, on_path(SweepPath::simd, 1));
      for (std::size_t i = 0; i < q.size(); ++i) wrong += !identical(got[i], expected[f][i]);
      ++batches;
    }
  };
  std::thread a(answer), b(answer);
  for (int f = 1; published.load() < 15 || batches.load() < 6; f = (f + 1) % kFrames) {
    latest.store(frame_of(f));
    ++published;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  done = true;
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0);
}

std::size_t allocated_bytes() {
#if CAPSWEEP_UNDER_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks + mallinfo2().hblkhd;
#endif
}

TEST(Tiles, ARemovedTilesMemoryGoesWithItsLastFrame) {
  const World start(testmesh::Mesh().box({-1, 0, -1}, {1, 1, 1}).triangles());
  std::vector<Triangle> big = testmesh::Mesh().floor(0, 0, 160, 160, 0.5f).triangles();  // 204,800 triangles
  const std::size_t before = allocated_bytes();
  std::size_t tile_bytes = 0;
  {
    World streamed = start;
    {
      const Tile tile{1, Vec3d(100, 0, 100), kDefaultLayers, World(big)};
      tile_bytes = tile.mesh.memory_bytes();
      streamed = start.streamed(std::span(&tile, 1));
    }
    const World frame_without = streamed.streamed({}, std::vector<std::uint32_t>{1});
    // The caller's Tile is gone, the newest frame has no tile: the older frame still holds it.
    EXPECT_GE(allocated_bytes(), before + tile_bytes);
    EXPECT_EQ(frame_without.tiles().size(), 0u);
  }
  // Its last frame gone, the tile's memory is back (within what the allocator keeps for itself).
  EXPECT_GT(tile_bytes, std::size_t(10) << 20);
  EXPECT_LT(allocated_bytes(), before + (std::size_t(1) << 20));
}

TEST(Tiles, AgentsWalkAcrossTileBordersWhileTilesStreamInAndOut) {
  // Rolling ground in 16 m heightfield tiles between flat mesh tiles; 60 agents walk east at
  // 2 m/s for 20 s while tiles stream in 12 m ahead of the leaders and out 12 m behind the last:
  // none ends a tick inside anything, none is stuck at a border, the same bytes on 1 and 2 threads.
  std::map<std::uint32_t, Tile> library;
  for (std::uint32_t col = 0; col < 8; ++col) {
    for (std::uint32_t row = 0; row < 2; ++row) {
      const Vec3d origin(16.0 * col - 16, 0, 16.0 * row - 16);
      const std::uint32_t id = col * 2 + row;
      if ((col + row) % 2) {
        Heightfield h;
        h.columns = h.rows = 17;
        // A bump of up to 0.6 m, 0 along the tile's edges as its flat neighbours are.
        for (std::uint32_t r = 0; r < h.rows; ++r) {
          for (std::uint32_t c = 0; c < h.columns; ++c) {
            h.heights.push_back(0.6f * std::sin(float(M_PI) * float(c) / 16.f) * std::sin(float(M_PI) * float(r) / 16.f));
          }
        }
        library.emplace(id, heightfield_tile(id, origin, std::move(h)));
      } else {
        library.emplace(id, Tile{id, origin, kDefaultLayers, World(testmesh::Mesh().floor(0, 0, 16, 16, 2).triangles())});
      }
    }
  }
  World frame(testmesh::Mesh().box({-15, 0, -15}, {-14, 3, -14}).triangles());
  std::vector<Agent> agents;
  for (std::uint32_t i = 0; i < 60; ++i) {
    Agent a;
    const float x = -12.f + float(i % 6) * 1.5f, z = -14.f + float(i / 6) * 2.9f + (i % 2) * 0.3f;
    a.capsule = {{x, 1.07f, z}, {x, 2.17f, z}, 0.35f};  // above the bumps: it lands first
    a.id = i;
    agents.push_back(a);
  }
  const MoveSettings settings;
  std::set<std::uint32_t> in;
  std::size_t published = 0;
  for (int tick = 0; tick < 20 * 60; ++tick) {
    float lead = -1e9f, last = 1e9f;
    for (const Agent& a : agents) lead = std::max(lead, a.capsule.a.x), last = std::min(last, a.capsule.a.x);
    std::vector<Tile> add;
    std::vector<std::uint32_t> drop;
    for (const auto& [id, tile] : library) {
      const bool wanted = tile.origin.x <= lead + 12 && tile.origin.x + 16 >= last - 12;
      if (wanted && !in.count(id)) add.push_back(tile), in.insert(id);
      if (!wanted && in.count(id)) drop.push_back(id), in.erase(id);
    }
    if (!add.empty() || !drop.empty()) frame = frame.streamed(add, drop), ++published;
    for (Agent& a : agents) a.displacement = {2.f / 60.f, 0, 0};
    std::vector<MoveResult> one(agents.size()), two(agents.size());
    frame.move(agents, settings, one, on_path(SweepPath::simd, 1));
    frame.move(agents, settings, two, on_path(SweepPath::simd, 2));
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ASSERT_TRUE(answers::same(one[i], two[i])) << "tick " << tick << " agent " << i;
      ASSERT_TRUE(frame.is_clear(one[i].capsule, 0.5f * settings.skin)) << "tick " << tick << " agent " << i;
      agents[i].capsule = one[i].capsule;
      agents[i].vertical_speed = one[i].vertical_speed;
      agents[i].ground_triangle = one[i].ground_triangle;
    }
  }
  EXPECT_GT(published, 3u) << "tiles streamed in and out on the way";
  // Every agent crossed borders and walked on: at least 32 of its 40 m.
  for (const Agent& a : agents) EXPECT_GT(a.capsule.a.x, 20.f) << "agent " << a.id;
}

}  // namespace
