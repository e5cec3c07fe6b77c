// The exact scalar kernels, one pair at a time: the cost the brute path pays per candidate.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "core/face_first.h"
#include "core/random.h"
#include "core/sweep_upright.h"
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

// Agents meeting agents: a person walking 0.05-0.6 m near another standing within 1.5 m (what the
// grid hands World::move), through the general kernel (0) and through the public sweep (1),
// which takes the upright kernel. Starts in reach are left out: both go to the general kernel.
void BM_SweepUprightPair(benchmark::State& state) {
  Random rng(2);
  std::vector<Pair> pairs;
  while (pairs.size() < 4096) {
    const Vec3d c = rng.in_cube(1.5), o{0, rng.uniform(-0.1, 0.1), 0};
    const Vec3d d{rng.uniform(-1, 1), 0, rng.uniform(-1, 1)};
    Pair p;
    p.capsule = {to_float(c), to_float(c + Vec3d{0, 1.1, 0}), 0.35f};
    p.motion = to_float(d / length(d) * rng.uniform(0.05, 0.6));
    p.triangle.v[0] = to_float(o);
    p.triangle.v[1] = to_float(o + Vec3d{0, 1.1, 0});
    SweepHit h;
    if (detail::sweep_upright_capsules(p.capsule, p.motion, {p.triangle.v[0], p.triangle.v[1], 0.35f}, h)) {
      pairs.push_back(p);
    }
  }
  const bool upright = state.range(0) == 1;
  std::size_t i = 0, hits = 0;
  for (auto _ : state) {
    const Pair& p = pairs[i++ & 4095];
    const Capsule other{p.triangle.v[0], p.triangle.v[1], 0.35f};
    SweepHit h;
    if (upright) {
      sweep_capsule_capsule(p.capsule, p.motion, other, h);
    } else {
      detail::sweep_capsule_capsule_general(p.capsule, p.motion, other, h);
    }
    hits += h.hit;
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(upright ? "upright kernel" : "general kernel");
  state.counters["hit_share"] = double(hits) / double(state.iterations());
}
BENCHMARK(BM_SweepUprightPair)->Arg(0)->Arg(1);

// Movement's checks against the one triangle a person stands on (the carried ground, 2 cm down;
// the stays-on check, 35 cm down): a person 5-15 mm above its skin over a floor triangle of
// 0.5-4 m, flat or sloped up to 30 degrees, anywhere over it (near its edges too), through the
// exact kernel (0) and as World::move runs them, told from the face where it can (1).
void BM_SweepGroundCheck(benchmark::State& state) {
  Random rng(3);
  std::vector<Pair> pairs(4096);
  for (Pair& p : pairs) {
    const double size = rng.uniform(0.5, 4), tilt = rng.uniform(0, 0.52), turn = rng.uniform(0, 6.28);
    const Vec3d n{std::sin(tilt) * std::cos(turn), std::cos(tilt), std::sin(tilt) * std::sin(turn)};
    const Vec3d u = cross(n, Vec3d{0, 0, 1}) / length(cross(n, Vec3d{0, 0, 1})), w = cross(n, u);
    for (int k = 0; k < 3; ++k) {
      const double angle = k * 2.0943951023931953 + rng.uniform(-0.5, 0.5);
      p.triangle.v[k] = to_float((u * std::cos(angle) + w * std::sin(angle)) * size);
    }
    // Under the feet: anywhere on the triangle (a person carries the triangle it stands on).
    double b[3] = {rng.uniform(), rng.uniform(), rng.uniform()};
    const double sum = b[0] + b[1] + b[2];
    Vec3d foot{};
    for (int k = 0; k < 3; ++k) foot += to_double(p.triangle.v[k]) * (b[k] / sum);
    const double above = 0.36 + rng.uniform(0.005, 0.015);
    const Vec3d a = foot + Vec3d{0, above / n.y, 0};
    p.capsule = {to_float(a), to_float(a + Vec3d{0, 1.1, 0}), 0.36f};
    p.motion = {0, rng.chance(0.5) ? -0.02f : -0.35f, 0};
  }
  const bool face_first = state.range(0) == 1;
  std::size_t i = 0, hits = 0, told = 0;
  for (auto _ : state) {
    const Pair& p = pairs[i++ & 4095];
    SweepHit h;
    if (face_first) {
      told += detail::sweep_face_first(p.capsule, p.motion, p.triangle, h);
    } else {
      sweep_capsule_triangle_unchecked(p.capsule, p.motion, p.triangle, h);
    }
    hits += h.hit;
    benchmark::DoNotOptimize(h);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(face_first ? "face first" : "exact kernel");
  state.counters["hit_share"] = double(hits) / double(state.iterations());
  state.counters["told_share"] = double(told) / double(state.iterations());
}
BENCHMARK(BM_SweepGroundCheck)->Arg(0)->Arg(1);

}  // namespace
