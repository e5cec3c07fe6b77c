// Heightfield worlds. The contract: a world holding a heightfield (and buildings on it) answers
// every query kind with the same bytes as the mesh world of the same triangles, once a
// terrain triangle's index is mapped (cell and half, see heightfield.h): sweeps, rays and
// ellipsoids on every path, overlaps, moves and validation. The terrain's adjacency, computed
// from the grid, is link_triangles' on its mesh; the pyramid holds exactly its cells' heights.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include <capsweep/world.h>

#include "broadphase/terrain.h"
#include "world/world_arrays.h"
#include "tests/support/batches.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_oracle.h"
#include "tests/support/scene_queries.h"
#include "tests/support/scene_list.h"
#include "tests/support/terrains.h"
#include "tools/grid_mesh.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;
using terrains::MeshTwin;

SweepHit mapped(SweepHit h, const MeshTwin& twin) {
  if (h.hit) h.triangle = terrains::to_heightfield_index(twin, h.triangle);
  return h;
}

MoveResult mapped(MoveResult r, const MeshTwin& twin) {
  r.ground_triangle = terrains::to_heightfield_index(twin, r.ground_triangle);
  for (int k = 0; k < r.contact_count; ++k) r.contacts[k].triangle = terrains::to_heightfield_index(twin, r.contacts[k].triangle);
  return r;
}

Verdict mapped(Verdict v, const MeshTwin& twin) {
  v.hit = mapped(v.hit, twin);
  return v;
}

OverlapResult mapped(OverlapResult o, const MeshTwin& twin) {
  o.triangle = terrains::to_heightfield_index(twin, o.triangle);
  return o;
}

// Every kind of request through both worlds, on every path and with 1 and all threads.
void expect_same_answers(const World& terrain_world, const World& mesh_world, const MeshTwin& twin, std::size_t count,
                         std::uint64_t seed) {
  batches::Batches b = batches::make(mesh_world, count, seed);
  const auto hard = cases::adversarial_scene_queries(twin.triangles, count, seed + 1);
  b.sweeps.insert(b.sweeps.end(), hard.begin(), hard.end());
  const auto rays = cases::adversarial_scene_queries(twin.triangles, count / 2, seed + 2, true);
  b.sweeps.insert(b.sweeps.end(), rays.begin(), rays.end());
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  std::size_t hits = 0, terrain_hits = 0;
  for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
    SCOPED_TRACE(name(path));
    std::vector<SweepHit> expected(b.sweeps.size()), got(b.sweeps.size());
    mesh_world.sweep(b.sweeps, expected, on_path(path, 1));
    terrain_world.sweep(b.sweeps, got, on_path(path, cores));
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_TRUE(identical(got[i], mapped(expected[i], twin)))
          << "query " << i << ": t " << got[i].t << " triangle " << got[i].triangle << ", the mesh's t " << expected[i].t
          << " triangle " << mapped(expected[i], twin).triangle;
      hits += got[i].hit;
      terrain_hits += got[i].hit && got[i].triangle >= twin.buildings;
    }
    std::vector<SweepEllipsoidQuery> e = make_ellipsoid_workload(mesh_world, Workload::validate, count, seed + 3);
    const auto far = make_ellipsoid_workload(mesh_world, Workload::long_range, count, seed + 4);
    e.insert(e.end(), far.begin(), far.end());
    std::vector<SweepHit> expected_e(e.size()), got_e(e.size());
    mesh_world.sweep_ellipsoid(e, expected_e, on_path(path, 1));
    terrain_world.sweep_ellipsoid(e, got_e, on_path(path, cores));
    for (std::size_t i = 0; i < e.size(); ++i) {
      ASSERT_TRUE(identical(got_e[i], mapped(expected_e[i], twin))) << "ellipsoid " << i;
    }
  }
  EXPECT_GT(terrain_hits, hits / 10) << "the queries hardly touch the terrain";

  std::vector<OverlapResult> expected_o(b.capsules.size()), got_o(b.capsules.size());
  mesh_world.overlap(b.capsules, 0.05f, expected_o);
  terrain_world.overlap(b.capsules, 0.05f, got_o);
  for (std::size_t i = 0; i < got_o.size(); ++i) {
    ASSERT_TRUE(answers::same(got_o[i], mapped(expected_o[i], twin))) << "capsule " << i;
  }

  for (bool agents_collide : {false, true}) {
    MoveSettings settings;
    settings.agents_collide = agents_collide;
    std::vector<MoveResult> expected_m(b.agents.size()), got_m(b.agents.size());
    mesh_world.move(b.agents, settings, expected_m, on_path(SweepPath::simd, 1));
    terrain_world.move(b.agents, settings, got_m, on_path(SweepPath::simd, cores));
    for (std::size_t i = 0; i < got_m.size(); ++i) {
      ASSERT_TRUE(answers::same(got_m[i], mapped(expected_m[i], twin))) << "agent " << i << " (agents collide: " << agents_collide << ")";
    }
  }
  ValidateSettings vs;
  vs.max_speed = 7.f;
  std::vector<Verdict> expected_v(b.claims.size()), got_v(b.claims.size());
  mesh_world.validate(b.claims, vs, expected_v);
  terrain_world.validate(b.claims, vs, got_v);
  for (std::size_t i = 0; i < got_v.size(); ++i) {
    ASSERT_TRUE(answers::same(got_v[i], mapped(expected_v[i], twin))) << "claim " << i;
  }
}

struct Case {
  const char* name;
  terrains::Options options;
  bool buildings;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class TerrainCases : public testing::TestWithParam<Case> {};

TEST_P(TerrainCases, AnswersLikeTheMeshOfTheSameTerrain) {
  const Heightfield terrain = terrains::generate(GetParam().options);
  const std::vector<Triangle> buildings = GetParam().buildings ? terrains::buildings_on(terrain, 7) : std::vector<Triangle>{};
  const MeshTwin twin = terrains::mesh_twin(terrain, buildings);
  const World mesh_world(twin.triangles);
  const World terrain_world(terrain, buildings);
  ASSERT_EQ(terrain_world.triangle_count(), buildings.size() + 2 * heightfield_cells(terrain));
  for (std::uint32_t m = 0; m < twin.triangles.size(); ++m) {
    const Triangle t = terrain_world.triangle(terrains::to_heightfield_index(twin, m));
    for (int v = 0; v < 3; ++v) ASSERT_TRUE(t.v[v] == twin.triangles[m].v[v]) << "triangle " << m;
  }
  EXPECT_TRUE(std::memcmp(&terrain_world.bounds(), &mesh_world.bounds(), sizeof(Aabb)) == 0);
  expect_same_answers(terrain_world, mesh_world, twin, 1500, 11);
}

INSTANTIATE_TEST_SUITE_P(
    Generated, TerrainCases,
    testing::Values(Case{"floats", {}, false}, Case{"samples16", {.samples16 = true, .seed = 2}, false},
                    Case{"holes", {.holes = true, .seed = 3}, false},
                    Case{"buildings", {.holes = true, .seed = 4}, true},
                    Case{"far_from_origin", {.origin = {4990.f, -3.f, 5020.f}, .seed = 5}, true},
                    Case{"odd_sizes", {.columns = 6, .rows = 97, .cell = 0.75f, .seed = 6}, true}),
    [](const auto& info) { return std::string(info.param.name); });

// The 0 A.D. terrain is a grid exported as a mesh: read back as its heightfield, it must
// answer exactly like the mesh of the same triangles.
#if CAPSWEEP_TESTS_READ_FILES  // a scene file needs io
TEST(Terrain, TheZeroADTerrainAnswersLikeItsMesh) {
  const GridMesh grid = heightfield_of_grid_mesh(scenes::load("0ad_corinthian_isthmus_4p.obj.gz"));
  ASSERT_EQ(grid.terrain.columns, 689u);
  const MeshTwin twin = terrains::mesh_twin(grid.terrain, {});
  const World mesh_world(twin.triangles), terrain_world(grid.terrain);
  expect_same_answers(terrain_world, mesh_world, twin, 300, 71);
}
#endif

// The answers are the oracle's too (held to the mesh above, but checked on their own here).
TEST(Terrain, TheOracleAcceptsItsAnswers) {
  const Heightfield terrain = terrains::generate({.holes = true, .seed = 8});
  const std::vector<Triangle> buildings = terrains::buildings_on(terrain, 9);
  const MeshTwin twin = terrains::mesh_twin(terrain, buildings);
  const World world(terrain, buildings);
  std::vector<SweepQuery> q;
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    const auto part = make_workload(world, wl, 400, 12 + std::uint64_t(wl));
    q.insert(q.end(), part.begin(), part.end());
  }
  std::vector<SweepHit> hits(q.size());
  world.sweep(q, hits);
  std::vector<std::uint32_t> back(world.triangle_count(), kNoTriangle);  // heightfield index -> twin index
  for (std::uint32_t m = 0; m < twin.triangles.size(); ++m) back[terrains::to_heightfield_index(twin, m)] = m;
  for (std::size_t i = 0; i < q.size(); ++i) {
    SweepHit h = hits[i];
    if (h.hit) {
      ASSERT_NE(back[h.triangle], kNoTriangle) << "query " << i << " hit a hole";
      h.triangle = back[h.triangle];
    }
    const std::string why = oracle::judge_scene(h, q[i], twin.triangles);
    ASSERT_TRUE(why.empty()) << "query " << i << ": " << why;
  }
}

TEST(Terrain, LinksAreThoseOfItsOwnMesh) {
  for (const terrains::Options& o : {terrains::Options{.holes = true, .seed = 21},
                                     terrains::Options{.columns = 33, .rows = 17, .samples16 = true, .seed = 22}}) {
    const Heightfield terrain = terrains::generate(o);
    const MeshTwin twin = terrains::mesh_twin(terrain, {});
    const std::vector<TriangleLinks> expected = link_triangles(twin.triangles);
    const World world(terrain);
    const WorldArrays& w = world.arrays();
    std::size_t seams = 0, flat = 0;
    for (std::uint32_t m = 0; m < twin.triangles.size(); ++m) {
      const TriangleLinks got = links_at(w, terrains::to_heightfield_index(twin, m));
      for (int e = 0; e < 3; ++e) {
        ASSERT_EQ(got.across[e], terrains::to_heightfield_index(twin, expected[m].across[e])) << "triangle " << m << " edge " << e;
      }
      ASSERT_EQ(got.seam_edges, expected[m].seam_edges) << "triangle " << m;
      ASSERT_EQ(got.flat_vertices, expected[m].flat_vertices) << "triangle " << m;
      seams += std::popcount(unsigned(got.seam_edges));
      flat += std::popcount(unsigned(got.flat_vertices));
    }
    // The generated ground has flat plateaus and ramps (seams, flat vertices) and rough hills.
    EXPECT_GT(seams, twin.triangles.size() / 4);
    EXPECT_GT(flat, twin.triangles.size() / 8);
    EXPECT_LT(seams, 3 * twin.triangles.size() * 9 / 10);
  }
}

TEST(Terrain, ThePyramidHoldsExactlyItsCellsHeights) {
  for (const terrains::Options& o : {terrains::Options{.columns = 70, .rows = 37, .holes = true, .seed = 31},
                                     terrains::Options{.columns = 70, .rows = 37, .seed = 32},
                                     terrains::Options{.columns = 33, .rows = 66, .samples16 = true, .seed = 33}}) {
    const Heightfield terrain = terrains::generate(o);
    const World world(terrain);
    const TerrainView& v = world.arrays().terrain;
    ASSERT_GE(v.levels.count, 4);
    for (int level = 0; level < v.levels.count; ++level) {
      const std::uint64_t span = std::uint64_t(kTileCells) << level;
      for (std::uint32_t tz = 0; tz < v.levels.tiles_z[level]; ++tz) {
        for (std::uint32_t tx = 0; tx < v.levels.tiles_x[level]; ++tx) {
          float lo = INFINITY, hi = -INFINITY;
          for (std::uint64_t r = tz * span; r < std::min<std::uint64_t>((tz + 1) * span, v.cells_z()); ++r) {
            for (std::uint64_t c = tx * span; c < std::min<std::uint64_t>((tx + 1) * span, v.cells_x()); ++c) {
              if (!terrain.holes.empty() && terrain.holes[r * v.cells_x() + c]) continue;
              for (int half = 0; half < 2; ++half) {
                for (const Vec3& p : heightfield_triangle(terrain, std::uint32_t(r), std::uint32_t(c), half).v) {
                  lo = std::min(lo, p.y);
                  hi = std::max(hi, p.y);
                }
              }
            }
          }
          const HeightRange& got = v.range(level, tx, tz);
          if (lo > hi) {
            EXPECT_TRUE(got.empty()) << "level " << level << " tile " << tx << "," << tz;
          } else {
            EXPECT_EQ(got.min, lo) << "level " << level << " tile " << tx << "," << tz;
            EXPECT_EQ(got.max, hi) << "level " << level << " tile " << tx << "," << tz;
          }
        }
      }
    }
  }
}

TEST(Terrain, HolesAreNotThere) {
  Heightfield terrain = terrains::generate({.columns = 9, .rows = 9, .seed = 41});
  terrain.holes.assign(64, 1);
  terrain.holes[3 * 8 + 4] = 0;  // one cell of ground left
  const World world(terrain);
  for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
    EXPECT_EQ(world.layers_of(i), i / 2 == 3 * 8 + 4 ? kDefaultLayers : 0u) << "triangle " << i;
  }
  // A ray straight down through every cell's centre hits only the one left.
  std::vector<SweepQuery> q;
  for (std::uint32_t r = 0; r < 8; ++r) {
    for (std::uint32_t c = 0; c < 8; ++c) {
      const Vec3 p = heightfield_vertex(terrain, r, c);
      const Vec3 centre{p.x + 0.5f * terrain.cell_x, 100.f, p.z + 0.3f * terrain.cell_z};
      q.push_back({{centre, centre, 0.f}, {0.f, -200.f, 0.f}});
    }
  }
  for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
    std::vector<SweepHit> hits(q.size());
    world.sweep(q, hits, on_path(path));
    for (std::size_t i = 0; i < q.size(); ++i) {
      EXPECT_EQ(hits[i].hit, i == 3 * 8 + 4) << name(path) << " cell " << i;
      if (hits[i].hit) {
        EXPECT_EQ(hits[i].triangle / 2, 3u * 8 + 4);
      }
    }
  }
  // Every cell a hole: a world with nothing in it still answers (misses).
  terrain.holes.assign(64, 1);
  const World empty(terrain);
  std::vector<SweepHit> hits(q.size());
  empty.sweep(q, hits);
  for (const SweepHit& h : hits) EXPECT_FALSE(h.hit);
}

TEST(Terrain, LayersHideTheTerrainOrTheBuildings) {
  Heightfield terrain = terrains::generate({.seed = 51});
  terrain.layers = 2u;
  const std::vector<Triangle> buildings = terrains::buildings_on(terrain, 52);
  const World world(terrain, buildings);
  const MeshTwin twin = terrains::mesh_twin(terrain, buildings);
  const World buildings_only(buildings), terrain_only(terrain);
  const std::vector<SweepQuery> q = make_workload(World(twin.triangles), Workload::long_range, 2000, 53);
  std::vector<SweepHit> expect_b(q.size()), expect_t(q.size()), got(q.size());
  buildings_only.sweep(q, expect_b);
  terrain_only.sweep(q, expect_t);
  for (SweepPath path : {SweepPath::simd, SweepPath::scalar, SweepPath::brute}) {
    SweepOptions o = on_path(path);
    o.layers = 1u;
    world.sweep(q, got, o);
    for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(got[i], expect_b[i])) << name(path) << " query " << i;
    o.layers = 2u;
    world.sweep(q, got, o);
    for (std::size_t i = 0; i < q.size(); ++i) {
      SweepHit e = expect_t[i];
      if (e.hit) e.triangle += std::uint32_t(buildings.size());
      ASSERT_TRUE(identical(got[i], e)) << name(path) << " query " << i;
    }
    // The same in one batch, each query with a mask of its own: the pooled chunks mix them.
    std::vector<SweepQuery> mixed = q;
    std::vector<SweepHit> both(q.size());
    world.sweep(q, both, on_path(path));
    for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i].layers = i % 3 == 0 ? 1u : i % 3 == 1 ? 2u : kAllLayers;
    world.sweep(mixed, got, on_path(path));
    for (std::size_t i = 0; i < q.size(); ++i) {
      SweepHit e = i % 3 == 0 ? expect_b[i] : i % 3 == 1 ? expect_t[i] : both[i];
      if (i % 3 == 1 && e.hit) e.triangle += std::uint32_t(buildings.size());
      ASSERT_TRUE(identical(got[i], e)) << name(path) << " mixed query " << i;
    }
  }
}

TEST(Terrain, RefusesWhatItCannotBuild) {
  auto refused = [](Heightfield t, const std::string& words) {
    try {
      World w(std::move(t));
      ADD_FAILURE() << "accepted; expected: " << words;
    } catch (const WorldError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const Heightfield good = terrains::generate({.columns = 5, .rows = 4, .seed = 61});
  Heightfield t = good;
  t.columns = 1;
  refused(t, "at least 2 x 2 samples");
  t = good;
  t.heights.pop_back();
  refused(t, "19 heights for 5 x 4 samples");
  t = good;
  t.samples.assign(20, 0);
  refused(t, "exactly one of the two");
  t = good;
  t.heights[7] = NAN;
  refused(t, "sample (row 1, column 2) is not finite");
  t = good;
  t.heights[19] = 2e6f;
  refused(t, "sample (row 3, column 4) lies beyond 1e6 m");
  t = good;
  t.cell_z = 0.f;
  refused(t, "cell size must be finite and > 0");
  t = good;
  t.origin.x = 999999.f;
  t.cell_x = 1e-3f;
  refused(t, "cannot be told apart");
  t = good;
  t.holes.assign(5, 0);
  refused(t, "5 hole flags for 12 cells");
  t = good;
  t.layers = 0;
  refused(t, "layer mask is 0");
  t = good;
  t.heights.clear();
  t.samples.assign(20, 7);
  t.height_scale = -1.f;
  refused(t, "height scale must be finite and > 0");
}

}  // namespace
