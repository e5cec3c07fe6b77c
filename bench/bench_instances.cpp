// Worlds that move (issue 37): the time to publish a frame of new poses for 100, 10k and 100k
// instances, and sweeps against 100 instances holding 10k triangles in all against the same
// triangles baked into a static world (each validated first: the same bytes on both).
#include <benchmark/benchmark.h>

#include <cmath>
#include <stdexcept>

#include <capsweep/instances.h>
#include <capsweep/world.h>
#include "core/random.h"
#include "tools/workloads.h"

namespace capsweep::bench {
namespace {

// A 10 x 5 floor of 100 triangles with a wall across it: the prototype of the crate-like props.
std::vector<Triangle> prop() {
  std::vector<Triangle> t;
  for (int z = 0; z < 5; ++z) {
    for (int x = 0; x < 10; ++x) {
      const Vec3 a(0.4f * float(x), 0.f, 0.4f * float(z)), b = a + Vec3(0.4f, 0, 0), c = a + Vec3(0, 0, 0.4f),
                 d = a + Vec3(0.4f, 0.f, 0.4f);
      // Raised by a slope so that the prop is a ramp, not a flat tile.
      auto up = [&](Vec3 v) { return Vec3(v.x, 0.1f * v.x, v.z); };
      t.push_back({{up(a), up(c), up(b)}});
      t.push_back({{up(b), up(c), up(d)}});
    }
  }
  return t;
}

std::vector<Triangle> floor_of(float half) {
  return {{{Vec3(-half, 0, -half), Vec3(-half, 0, half), Vec3(half, 0, -half)}},
          {{Vec3(half, 0, -half), Vec3(-half, 0, half), Vec3(half, 0, half)}}};
}

Quat yaw(double a) { return {0, std::sin(a / 2), 0, std::cos(a / 2)}; }

std::vector<Instance> grid_of(std::size_t n, float spacing) {
  std::vector<Instance> in(n);
  const std::size_t side = std::size_t(std::ceil(std::sqrt(double(n))));
  for (std::size_t k = 0; k < n; ++k) {
    in[k].id = std::uint32_t(k);
    in[k].pose.position = Vec3d(spacing * double(k % side), 0.0, spacing * double(k / side));
    in[k].pose.rotation = yaw(0.1 * double(k % 7));
  }
  return in;
}

void BM_PoseUpdate(benchmark::State& state) {
  const std::size_t n = std::size_t(state.range(0));
  const World world(World(floor_of(1000)), {World(prop())}, grid_of(n, 6.f));
  std::vector<InstancePose> poses(n);
  Random rng(3);
  for (std::size_t k = 0; k < n; ++k) {
    poses[k].id = std::uint32_t(k);
    poses[k].pose = world.instances()[k].pose;
    poses[k].pose.position.y += rng.uniform(0, 0.5);
    poses[k].pose.rotation = yaw(rng.uniform(0, 6.28));
  }
  for (auto _ : state) {
    World next = world.posed(poses);
    benchmark::DoNotOptimize(next);
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(n));
  state.counters["instances"] = double(n);
}

// 100 instances of the 100-triangle prop, turned and scattered over a floor, or the same
// triangles baked in.
World props_world(bool baked) {
  std::vector<Instance> in = grid_of(100, 5.f);
  Random rng(8);
  for (Instance& i : in) i.pose.position += Vec3d(rng.uniform(-0.5, 0.5), 0, rng.uniform(-0.5, 0.5));
  if (!baked) return World(World(floor_of(60)), {World(prop())}, in);
  std::vector<Triangle> tris = floor_of(60);
  for (const Instance& i : in) {
    for (const Triangle& t : prop()) tris.push_back(placed(i.pose, t));
  }
  return World(tris);
}

void BM_InstancedSweep(benchmark::State& state, bool baked, Workload wl) {
  static const World instanced = props_world(false), flat = props_world(true);
  const World& w = baked ? flat : instanced;
  const std::vector<SweepQuery> q = make_workload(flat, wl, 8192, 37);
  std::vector<SweepHit> hits(q.size()), other(q.size());
  w.sweep(q, hits, on_path(SweepPath::simd, 1));
  (baked ? instanced : flat).sweep(q, other, on_path(SweepPath::simd, 1));
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!identical(hits[i], other[i])) {
      state.SkipWithError("the instanced world and the baked one answer differently");
      return;
    }
  }
  for (auto _ : state) {
    w.sweep(q, hits, on_path(SweepPath::simd, 1));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
  state.counters["triangles"] = double(w.triangle_count());
}

const int registered = [] {
  benchmark::RegisterBenchmark("PoseUpdate", BM_PoseUpdate)->Arg(100)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range}) {
    for (bool baked : {false, true}) {
      benchmark::RegisterBenchmark(("InstancedSweep/" + std::string(name(wl)) + (baked ? "/baked" : "/instances")).c_str(),
                                   BM_InstancedSweep, baked, wl)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.3);
    }
  }
  return 0;
}();

}  // namespace
}  // namespace capsweep::bench
