// Streamed tiles (issue 37): the time to build a 100k-triangle tile's mesh (off the query path)
// and to publish it (World::streamed) over a world of nine such tiles, and the latency of
// batches of 1,000 tick sweeps while another thread builds and publishes tiles, against the same
// batches on a still world; and the memory left once every frame of a removed tile is gone.
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include <capsweep/tiles.h>
#include <capsweep/world.h>
#include "tools/workloads.h"

namespace capsweep::bench {
namespace {

constexpr int kCells = 224;  // 2 x 224 x 224 = 100,352 triangles a tile
constexpr double kSide = 0.5 * kCells;

// Rolling ground of 0.5 m cells, in the tile's own frame, varied by seed.
std::vector<Triangle> hills(int seed) {
  auto y = [&](int i, int j) {
    return float(0.8 * std::sin(0.05 * i + seed) * std::cos(0.07 * j - seed) + 0.3 * std::sin(0.21 * (i + j)));
  };
  std::vector<Triangle> t;
  t.reserve(2 * kCells * kCells);
  for (int j = 0; j < kCells; ++j) {
    for (int i = 0; i < kCells; ++i) {
      const Vec3 a(0.5f * float(i), y(i, j), 0.5f * float(j)), b(0.5f * float(i + 1), y(i + 1, j), 0.5f * float(j)),
          c(0.5f * float(i), y(i, j + 1), 0.5f * float(j + 1)), d(0.5f * float(i + 1), y(i + 1, j + 1), 0.5f * float(j + 1));
      t.push_back({{a, c, b}});
      t.push_back({{b, c, d}});
    }
  }
  return t;
}

Vec3d origin_of(std::uint32_t id) { return Vec3d(kSide * double(id % 3) - 1.5 * kSide, -2.0, kSide * double(id / 3) - 1.5 * kSide); }

// Nine tiles in a 3 x 3 square about the origin over a static crate.
const World& nine_tiles() {
  static const World world = [] {
    std::vector<Tile> tiles;
    for (std::uint32_t id = 0; id < 9; ++id) tiles.push_back(Tile{id, origin_of(id), kDefaultLayers, World(hills(int(id)))});
    const World crate(std::vector<Triangle>{{{Vec3(-1, 0, -1), Vec3(1, 0, -1), Vec3(0, 2, 0)}}});
    return crate.streamed(tiles);
  }();
  return world;
}

void BM_TileBuild(benchmark::State& state) {
  const std::vector<Triangle> mesh = hills(11);
  for (auto _ : state) {
    World built(mesh);
    benchmark::DoNotOptimize(built);
  }
  state.counters["triangles"] = double(mesh.size());
}

void BM_TilePublish(benchmark::State& state) {
  const World& world = nine_tiles();
  const Tile next{4, origin_of(4), kDefaultLayers, World(hills(12))};
  const std::uint32_t replaced[] = {4};
  for (auto _ : state) {
    World frame = world.streamed(std::span(&next, 1), replaced);  // the middle tile replaced
    benchmark::DoNotOptimize(frame);
  }
  state.counters["triangles"] = double(world.triangle_count());
}

std::size_t allocated_bytes() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Batches of 1,000 tick sweeps on one thread, each on the newest frame, for 4 s; while
// `streaming`, another thread builds a tile (a new mesh each time, on one core: build_tile's
// threads = 1) and publishes it in place of the middle one, again and again.
void BM_TileStreamLatency(benchmark::State& state, bool streaming) {
  const World& world = nine_tiles();
  const std::vector<SweepQuery> q = make_workload(world, Workload::tick, 1000, 41);
  std::vector<SweepHit> hits(q.size());
  for (auto _ : state) {
    const std::size_t before = allocated_bytes();
    std::atomic<std::shared_ptr<const World>> latest{std::make_shared<const World>(world)};
    std::atomic<bool> done{false};
    std::atomic<int> published{0};
    std::thread streamer;
    if (streaming) {
      streamer = std::thread([&] {
        for (int seed = 20; !done.load(); ++seed) {
          const Tile tile = build_tile(4, origin_of(4), hills(seed), kDefaultLayers, 1);  // off the batches' core
          const std::uint32_t replaced[] = {4};
          latest.store(std::make_shared<const World>(latest.load()->streamed(std::span(&tile, 1), replaced)));
          ++published;
        }
      });
    }
    std::vector<double> ms;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(4)) {
      const std::shared_ptr<const World> frame = latest.load();
      const auto t0 = std::chrono::steady_clock::now();
      frame->sweep(q, hits, on_path(SweepPath::simd, 1));
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    done = true;
    if (streamer.joinable()) streamer.join();
    latest.store(nullptr);  // the last frame holding a streamed tile
    std::sort(ms.begin(), ms.end());
    state.counters["batches"] = double(ms.size());
    state.counters["p50_ms"] = ms[ms.size() / 2];
    state.counters["p99_ms"] = ms[ms.size() * 99 / 100];
    state.counters["published"] = published.load();
    malloc_trim(0);
    state.counters["kept_MiB"] = (double(allocated_bytes()) - double(before)) / double(1 << 20);
  }
}

const int registered = [] {
  benchmark::RegisterBenchmark("TileBuild/100k", BM_TileBuild)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark("TilePublish/100k", BM_TilePublish)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (bool streaming : {false, true}) {
    benchmark::RegisterBenchmark(streaming ? "TileStreamLatency/streaming" : "TileStreamLatency/still", BM_TileStreamLatency,
                                 streaming)
        ->Iterations(1)
        ->Unit(benchmark::kSecond)
        ->UseRealTime();
  }
  return 0;
}();

}  // namespace
}  // namespace capsweep::bench
