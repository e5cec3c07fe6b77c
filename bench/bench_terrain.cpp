// Heightfields beside meshes. The 0 A.D. terrain as its mesh and as the heightfield it was
// exported from, on the same queries (validated first: the same bytes); and a 4097 x 4097
// heightmap (33.5M triangles, synthetic hills, a 16-bit PNG): built from the file, loaded from
// its snapshot, swept, with its memory.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

#include <capsweep/files.h>

#include "bench/scenes.h"
#include "world/world_arrays.h"
#include "world/sweeps.h"
#include "tools/grid_mesh.h"
#include "tools/heightmaps.h"

namespace capsweep::bench {
namespace {

// The 0 A.D. terrain twice: its triangles in the heightfield's order (so that ties pick the same
// triangle) as a mesh world, and the heightfield itself.
struct TerrainPair {
  World mesh, field;
};

const TerrainPair& zero_ad() {
  static const std::unique_ptr<TerrainPair> pair = [] {
    const std::string path = std::string(CAPSWEEP_SCENES_DIR) + "/0ad_corinthian_isthmus_4p.obj.gz";
    const GridMesh grid = heightfield_of_grid_mesh(load_scene(path));
    return std::make_unique<TerrainPair>(TerrainPair{World(heightfield_mesh(grid.terrain)), World(grid.terrain)});
  }();
  return *pair;
}

const std::vector<SweepQuery>& zero_ad_queries(Workload wl) {
  static std::map<Workload, std::vector<SweepQuery>> cache;
  auto it = cache.find(wl);
  if (it == cache.end()) it = cache.emplace(wl, make_workload(zero_ad().mesh, wl, 8192, 2026)).first;
  return it->second;
}

void BM_TerrainSweep(benchmark::State& state, bool field, Workload wl) {
  const TerrainPair& p = zero_ad();
  const World& w = field ? p.field : p.mesh;
  const auto& q = zero_ad_queries(wl);
  std::vector<SweepHit> hits(q.size()), other(q.size());
  w.sweep(q, hits, on_path(SweepPath::simd, 1));
  (field ? p.mesh : p.field).sweep(q, other, on_path(SweepPath::simd, 1));
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!identical(hits[i], other[i])) {
      state.SkipWithError("the heightfield and the mesh of the same terrain answer differently");
      return;
    }
  }
  for (auto _ : state) {
    w.sweep(q, hits, on_path(SweepPath::simd, 1));
    benchmark::ClobberMemory();
  }
  TraversalStats stats;
  for (const SweepQuery& query : q) {
    SweepHit h;
    sweep_counted(w, query, h, SweepPath::simd, stats);
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
  state.counters["nodes/sweep"] = double(stats.nodes) / double(q.size());
  state.counters["tris/sweep"] = double(stats.triangles) / double(q.size());
  state.counters["bytes/tri"] = double(w.memory_bytes()) / double(w.triangle_count());
}

// The 4097 x 4097 heightmap, written once per process.
struct BigTerrain {
  std::string png, snapshot;
  HeightmapOptions options;
  std::unique_ptr<World> world;
  std::map<Workload, std::vector<SweepQuery>> queries;
  ~BigTerrain() {
    std::remove(png.c_str());
    std::remove(snapshot.c_str());
  }
};

BigTerrain& big() {
  static const std::unique_ptr<BigTerrain> t = [] {
    auto b = std::make_unique<BigTerrain>();
    b->png = "/tmp/capsweep_bench_hills_" + std::to_string(getpid()) + ".png";
    b->snapshot = "/tmp/capsweep_bench_hills_" + std::to_string(getpid()) + ".cwsw";
    write_gray_png(b->png, 4097, 4097, synthetic_hills(4097, 3));
    b->options.cell_x = b->options.cell_z = 1.f;
    b->options.height_scale = 0.002f;  // 131 m of relief over 4 km
    b->world = std::make_unique<World>(load_heightmap(b->png, b->options));
    save_snapshot(*b->world, b->png, b->snapshot);
    return b;
  }();
  return *t;
}

void BM_TerrainBuild(benchmark::State& state) {
  BigTerrain& b = big();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const World w(load_heightmap(b.png, b.options));
    bytes = w.memory_bytes();
    benchmark::DoNotOptimize(w.arrays().terrain.pyramid.data());
  }
  state.counters["triangles"] = double(b.world->triangle_count());
  state.counters["MB"] = double(bytes) / 1e6;
}

void BM_TerrainLoad(benchmark::State& state) {
  BigTerrain& b = big();
  std::uint64_t file = 0;
  for (auto _ : state) {
    const Snapshot s = load_snapshot(b.snapshot);
    file = s.bytes;
    benchmark::DoNotOptimize(s.world.arrays().terrain.pyramid.data());
  }
  state.counters["file_MB"] = double(file) / 1e6;
  state.counters["MB"] = double(b.world->memory_bytes()) / 1e6;
}

void BM_BigTerrainSweep(benchmark::State& state, Workload wl) {
  BigTerrain& b = big();
  auto it = b.queries.find(wl);
  if (it == b.queries.end()) it = b.queries.emplace(wl, make_workload(*b.world, wl, 8192, 2026)).first;
  const auto& q = it->second;
  std::vector<SweepHit> hits(q.size()), scalar(q.size());
  b.world->sweep(q, hits, on_path(SweepPath::simd, 1));
  b.world->sweep(q, scalar, on_path(SweepPath::scalar, 1));
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!identical(hits[i], scalar[i])) {
      state.SkipWithError("simd and scalar paths differ");
      return;
    }
  }
  for (auto _ : state) {
    b.world->sweep(q, hits, on_path(SweepPath::simd, 1));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
}

const int registered = [] {
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    for (bool field : {false, true}) {
      benchmark::RegisterBenchmark(
          ("Terrain/0ad/" + std::string(field ? "heightfield" : "mesh") + "/" + name(wl) + "/1thread").c_str(),
          BM_TerrainSweep, field, wl)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.3);
    }
  }
  benchmark::RegisterBenchmark("TerrainBuild/hills4097", BM_TerrainBuild)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("TerrainLoad/hills4097", BM_TerrainLoad)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range}) {
    benchmark::RegisterBenchmark(("Terrain/hills4097/heightfield/" + std::string(name(wl)) + "/1thread").c_str(),
                                 BM_BigTerrainSweep, wl)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.3);
  }
  return 0;
}();

}  // namespace
}  // namespace capsweep::bench
