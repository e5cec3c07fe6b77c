// Which way to fill the SIMD lanes: a measured answer.
//
//   triangles: one sweep against eight live triangles at a time (live lanes of the leaves a
//              sweep visits gathered before the full kernel: the simd path before pooling);
//   pooled:    lanes over triangles, the live lanes a sweep leaves after its last full stage
//              pooled with those of the other sweeps of its chunk (what the simd path does now);
//   queries:   a packet of eight nearby sweeps (batch sorted by the Morton code of the capsule
//              centres) against one triangle at a time, every triangle live for any of them.
//
// All run the same full kernel per lane, so the share of lanes doing useful work decides. This
// benchmark counts, for every scene and workload, the live (query, triangle) pairs each scheme
// would evaluate and the lanes it would spend on them.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "world/world_arrays.h"
#include "world/sweeps.h"
#include "bench/scenes.h"
#include "broadphase/morton.h"
#include "world/walk.h"
#include "simd/block_sweep.h"
#include <capsweep/sweep.h>

namespace capsweep::bench {
namespace {

// The triangles a sweep's rejection stage leaves live (no pruning by hits: an upper bound for
// both schemes alike).
std::vector<std::uint32_t> live_triangles(const World& w, const SweepQuery& q) {
  const BlockQuery bq = make_block_query(q.capsule, q.motion);
  const BlockLiveFn live = best_block_sweep().live;
  std::vector<std::uint32_t> out;
  float limit = 1.f;
  TraversalStats stats;
  walk_world(w.arrays(), make_swept_box(q.capsule, q.motion), limit, stats, [&](const TriangleBlock& block) {
    for (std::uint32_t bits = live(block, bq); bits != 0; bits &= bits - 1) {
      out.push_back(block.triangle[std::countr_zero(bits)]);
    }
    return false;
  }, kAllLayers);
  std::sort(out.begin(), out.end());
  return out;
}

void BM_LaneUse(benchmark::State& state, const std::string& scene, Workload wl) {
  const World& w = world_for(scene);
  std::vector<SweepQuery> q = queries_for(scene, wl);
  std::sort(q.begin(), q.end(), [&](const SweepQuery& x, const SweepQuery& y) {
    return morton_code(w.bounds(), (x.capsule.a + x.capsule.b) * 0.5f) <
           morton_code(w.bounds(), (y.capsule.a + y.capsule.b) * 0.5f);
  });
  std::vector<std::vector<std::uint32_t>> live(q.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < q.size(); ++i) live[i] = live_triangles(w, q[i]);
  }
  double pairs = 0, triangle_lanes = 0, packet_lanes = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    pairs += double(live[i].size());
    triangle_lanes += 8.0 * double((live[i].size() + 7) / 8);  // gathered per sweep, last block partial
  }
  for (std::size_t first = 0; first < q.size(); first += 8) {
    std::vector<std::uint32_t> uni;
    for (std::size_t i = first; i < std::min(q.size(), first + 8); ++i) uni.insert(uni.end(), live[i].begin(), live[i].end());
    std::sort(uni.begin(), uni.end());
    uni.erase(std::unique(uni.begin(), uni.end()), uni.end());
    packet_lanes += 8.0 * double(uni.size());  // each triangle of the union against all 8 sweeps
  }
  // How sharp the rejection stage is: of the live pairs, those the capsule really touches.
  double touched = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    for (std::uint32_t t : live[i]) {
      SweepHit h;
      sweep_capsule_triangle_unchecked(q[i].capsule, q[i].motion, w.triangle(t), h);
      touched += h.hit;
    }
  }
  // Pooled (what the simd path does): a sweep's full stages of eight run at once, the rest waits
  // for the other sweeps of its chunk of kSweepChunk (no pruning counted: an upper bound on calls).
  double pooled_calls = 0;
  for (std::size_t first = 0; first < q.size(); first += kSweepChunk) {
    std::size_t leftover = 0;
    for (std::size_t i = first; i < std::min(q.size(), first + kSweepChunk); ++i) {
      pooled_calls += double(live[i].size() / 8);
      leftover += live[i].size() % 8;
    }
    pooled_calls += double((leftover + 7) / 8);
  }
  state.counters["use_lanes_pooled"] = pooled_calls > 0 ? pairs / (8.0 * pooled_calls) : 0;
  state.counters["live_pairs/sweep"] = pairs / double(q.size());
  state.counters["touched_pairs/sweep"] = touched / double(q.size());
  state.counters["use_lanes_over_tris"] = triangle_lanes > 0 ? pairs / triangle_lanes : 0;
  state.counters["use_lanes_over_queries"] = packet_lanes > 0 ? pairs / packet_lanes : 0;
}

void register_all() {
  for (const std::string& scene : scene_names()) {
    for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range}) {
      benchmark::RegisterBenchmark(("LaneUse/" + scene + "/" + name(wl)).c_str(), BM_LaneUse, scene, wl)
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
    }
  }
}

const int registered = (register_all(), 0);

}  // namespace
}  // namespace capsweep::bench
