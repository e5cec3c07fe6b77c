// The exact scalar kernels, one pair at a time: the cost the brute path pays per candidate.
#include <benchmark/benchmark.h>

#include <vector>

#include "core/random.h"
#include <capsweep/sweep.h>

namespace {

using namespace capsweep;

struct Pair {
  Capsule capsule;
  Vec3 motion;
  Triangle triangle;
};

// Person-sized capsules moving 0.05-2 m near 1-4 m triangles: most sweeps must run every part.
std::vector<Pair> near_pairs(std::size_t n) {
  Random rng(1);
  std::vector<Pair> pairs(n);
  for (Pair& p : pairs) {
    const Vec3d c = rng.in_cube(1.0);
    p.capsule = {to_float(c), to_float(c + Vec3d{0, 1.1, 0}), 0.35f};
    p.motion = to_float(rng.unit_vector() * rng.uniform(0.05, 2.0));
    const Vec3d o = rng.in_cube(1.5);
    p.triangle = {{to_float(o), to_float(o + rng.in_cube(2)), to_float(o + rng.in_cube(2))}};
  }
  return pairs;
}

void BM_SweepCapsuleTriangle(benchmark::State& state) {
  const auto pairs = near_pairs(4096);
  std::size_t i = 0, hits = 0;
  for (auto _ : state) {
    const Pair& p = pairs[i++ & 4095];
    SweepHit h;
    sweep_capsule_triangle(p.capsule, p.motion, p.triangle, h);
    hits += h.hit;
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_share"] = double(hits) / double(state.iterations());
}
BENCHMARK(BM_SweepCapsuleTriangle);

void BM_SweepCapsuleCapsule(benchmark::State& state) {
  const auto pairs = near_pairs(4096);
  std::size_t i = 0;
  for (auto _ : state) {
    const Pair& p = pairs[i++ & 4095];
    SweepHit h;
    sweep_capsule_capsule(p.capsule, p.motion, {p.triangle.v[0], p.triangle.v[1], 0.35f}, h);
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SweepCapsuleCapsule);

}  // namespace
