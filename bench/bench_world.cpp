// Whole-world sweeps on every scene and workload: the simd and scalar paths on one thread (the
// per-core rate) and on all threads, the BVH build, and the peers (Embree rays, Bullet capsule
// sweeps) on the same queries. Every capsweep benchmark validates before it times: simd equals
// scalar, scalar equals brute force on a sample, and one thread equals all threads.
#include <benchmark/benchmark.h>
#include "parallel/executor.h"
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "world/sweep_batch.h"
#include "world/world_arrays.h"
#include "world/sweeps.h"
#include "bench/peers.h"
#include "bench/scenes.h"
#include "broadphase/bvh.h"
#include <capsweep/files.h>

namespace capsweep::bench {
namespace {

std::vector<SweepHit> answer(const World& w, const std::vector<SweepQuery>& q, SweepPath path, int threads) {
  std::vector<SweepHit> hits(q.size());
  w.sweep(q, hits, on_path(path, threads));
  return hits;
}

// Throws if any path or thread count disagrees; once per scene and workload.
void validate(const std::string& scene, Workload wl) {
  static std::set<std::pair<std::string, Workload>> done;
  if (done.count({scene, wl})) return;
  const World& w = world_for(scene);
  const auto& q = queries_for(scene, wl);
  const auto simd = answer(w, q, SweepPath::simd, 1), scalar = answer(w, q, SweepPath::scalar, 1);
  const auto all = answer(w, q, SweepPath::simd, 0);
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!identical(simd[i], all[i])) throw std::runtime_error("thread count changed an answer");
    // Exact agreement is what the tests find on these workloads; any drift is worth a look.
    if (!identical(simd[i], scalar[i])) throw std::runtime_error("simd and scalar paths differ");
    if (i % 64 == 0) {
      SweepHit brute;
      w.sweep_one(q[i], brute, SweepPath::brute);
      if (!identical(brute, scalar[i])) throw std::runtime_error("the BVH lost a contact brute force finds");
    }
  }
  done.insert({scene, wl});
}

void BM_Sweep(benchmark::State& state, const std::string& scene, Workload wl, SweepPath path, int threads) {
  const World& w = world_for(scene);
  const auto& q = queries_for(scene, wl);
  try {
    validate(scene, wl);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::vector<SweepHit> hits(q.size());
  for (auto _ : state) {
    w.sweep(q, hits, on_path(path, threads));
    benchmark::ClobberMemory();
  }
  TraversalStats stats;
  std::size_t n_hits = 0;
  for (const SweepQuery& query : q) {
    SweepHit h;
    sweep_counted(w, query, h, path, stats);
    n_hits += h.hit;
  }
  const double n = double(q.size());
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
  state.counters["threads"] = threads > 0 ? threads : parallel::default_threads();
  state.counters["nodes/sweep"] = double(stats.nodes) / n;
  state.counters["leaves/sweep"] = double(stats.leaves) / n;
  state.counters["tris/sweep"] = double(stats.triangles) / n;
  state.counters["hit_share"] = double(n_hits) / n;
}

// The same people as ellipsoids (radii 0.35, 0.9, 0.35 at the capsule's centre, the same
// motions as the Sweep rows): every path must give the same bytes; timed on `simd`.
void BM_SweepEllipsoid(benchmark::State& state, const std::string& scene, Workload wl, int threads) {
  const World& w = world_for(scene);
  const std::vector<SweepEllipsoidQuery> q = make_ellipsoid_workload(w, wl, 8192, 2026);
  std::vector<SweepHit> hits(q.size()), scalar(q.size());
  w.sweep_ellipsoid(q, hits, on_path(SweepPath::simd, threads));
  w.sweep_ellipsoid(q, scalar, on_path(SweepPath::scalar, 1));
  std::size_t n_hits = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    n_hits += hits[i].hit;
    if (!identical(hits[i], scalar[i])) {
      state.SkipWithError("simd and scalar ellipsoid answers differ");
      return;
    }
  }
  for (auto _ : state) {
    w.sweep_ellipsoid(q, hits, on_path(SweepPath::simd, threads));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
  state.counters["hit_share"] = double(n_hits) / double(q.size());
}

// The engine before the pooled narrow phase (each sweep's leftover lanes swept at once), on the
// same queries in the same run: the ratio pooled / unpooled is what pooling buys.
void BM_SweepUnpooled(benchmark::State& state, const std::string& scene, Workload wl) {
  const World& w = world_for(scene);
  const auto& q = queries_for(scene, wl);
  std::vector<SweepHit> hits(q.size());
  auto run = [&] {
    sweep_batch(
        w, q.size(), [&](std::size_t i) -> const SweepQuery& { return q[i]; },
        [&](std::size_t i, const SweepHit& h, Status) { hits[i] = h; }, on_path(SweepPath::simd, 1), false);
  };
  run();
  const auto pooled = answer(w, q, SweepPath::simd, 1);
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!identical(hits[i], pooled[i])) {
      state.SkipWithError("pooled and unpooled answers differ");
      return;
    }
  }
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
}

template <class Peer>
const Peer& peer_for(const std::string& scene) {
  static std::map<std::string, std::unique_ptr<Peer>> cache;
  auto& p = cache[scene];
  if (!p) p = std::make_unique<Peer>(world_for(scene).mesh_triangles());
  return *p;
}

void BM_EmbreeRay(benchmark::State& state, const std::string& scene, Workload wl) {
  const auto& q = queries_for(scene, wl);
  const EmbreeScene& embree = peer_for<EmbreeScene>(scene);
  std::size_t n_hits = 0;
  for (auto _ : state) {
    n_hits = 0;
    for (const SweepQuery& query : q) n_hits += embree.cast(query).hit;
    benchmark::DoNotOptimize(n_hits);
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
  state.counters["hit_share"] = double(n_hits) / double(q.size());
  if (wl != Workload::ray) return;
  // The same rays: how Embree's answers compare with capsweep's (not a pass/fail: a peer).
  const auto exact = answer(world_for(scene), q, SweepPath::simd, 0);
  std::size_t same = 0, both = 0;
  double err = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    const PeerHit h = embree.cast(q[i]);
    same += h.hit == exact[i].hit;
    if (h.hit && exact[i].hit) {
      ++both;
      err += std::fabs(h.t - exact[i].t) * double(length(q[i].motion));
    }
  }
  state.counters["agrees_hit_miss"] = double(same) / double(q.size());
  state.counters["mean_dist_err_mm"] = both ? 1000 * err / double(both) : 0;
}

void BM_BulletSweep(benchmark::State& state, const std::string& scene, Workload wl) {
  const auto& q = queries_for(scene, wl);
  const BulletScene& bullet = peer_for<BulletScene>(scene);
  std::vector<PeerHit> out(q.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < q.size(); ++i) out[i] = bullet.sweep(q[i]);
    benchmark::ClobberMemory();
  }
  // How Bullet's answers compare with capsweep's exact ones (not a pass/fail: Bullet is a peer).
  const auto exact = answer(world_for(scene), q, SweepPath::simd, 0);
  std::size_t same = 0, both = 0, n_hits = 0;
  double err = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    n_hits += out[i].hit;
    same += out[i].hit == exact[i].hit;
    if (out[i].hit && exact[i].hit) {
      ++both;
      const Vec3& d = q[i].motion;
      err += std::fabs(out[i].t - exact[i].t) * std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    }
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(q.size()));
  state.counters["hit_share"] = double(n_hits) / double(q.size());
  state.counters["agrees_hit_miss"] = double(same) / double(q.size());
  state.counters["mean_dist_err_mm"] = both ? 1000 * err / double(both) : 0;
}

void BM_BuildBvh(benchmark::State& state, const std::string& scene) {
  const World& w = world_for(scene);
  const std::vector<Triangle> soup = w.mesh_triangles();
  Bvh bvh;
  for (auto _ : state) {
    bvh = build_bvh(soup);
    benchmark::DoNotOptimize(bvh.nodes.data());
  }
  const double n = double(w.triangle_count());
  state.counters["triangles"] = n;
  state.counters["bvh_bytes/tri"] = double(bvh.memory_bytes()) / n;
  state.counters["depth"] = bvh.depth;
  state.counters["blocks"] = double(bvh.blocks.size());
  state.counters["lanes_used"] = n / (double(bvh.blocks.size()) * kBlockLanes);
}

// Start-up: building a world from its triangles against mapping its snapshot (capsweep build).
void BM_BuildWorld(benchmark::State& state, const std::string& scene) {
  const World& w = world_for(scene);
  const std::vector<Triangle> soup = w.mesh_triangles();
  std::size_t bytes = 0;
  for (auto _ : state) {
    World built(soup);
    bytes = built.memory_bytes();
    benchmark::DoNotOptimize(built.arrays().bvh.nodes.data());
  }
  state.counters["triangles"] = double(w.triangle_count());
  state.counters["world_bytes/tri"] = double(bytes) / double(w.triangle_count());  // issue 38: target 64
}

void BM_LoadSnapshot(benchmark::State& state, const std::string& scene) {
  const World& w = world_for(scene);
  const std::string path = "/tmp/capsweep_bench_" + std::to_string(getpid()) + ".cwsw";
  save_snapshot(w, scene, path);
  {  // validated before timed: the loaded world answers like the built one
    const Snapshot s = load_snapshot(path);
    const std::vector<SweepQuery> q = make_workload(w, Workload::validate, 2000, 5);
    std::vector<SweepHit> a(q.size()), b(q.size());
    w.sweep(q, a);
    s.world.sweep(q, b);
    for (std::size_t i = 0; i < q.size(); ++i) {
      if (!identical(a[i], b[i])) state.SkipWithError("the snapshot answers differently");
    }
  }
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    const Snapshot s = load_snapshot(path);
    bytes = s.bytes;
    benchmark::DoNotOptimize(s.world.arrays().bvh.nodes.data());
  }
  std::remove(path.c_str());
  state.counters["MB"] = double(bytes) / 1e6;
  state.counters["file_bytes/tri"] = double(bytes) / double(w.triangle_count());
  state.SetBytesProcessed(state.iterations() * std::int64_t(bytes));
}

const char* thread_label(int threads) { return threads == 1 ? "1thread" : "allthreads"; }

void register_all() {
  for (const std::string& scene : scene_names()) {
    benchmark::RegisterBenchmark(("BuildBvh/" + scene).c_str(), BM_BuildBvh, scene)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.5);
    benchmark::RegisterBenchmark(("BuildWorld/" + scene).c_str(), BM_BuildWorld, scene)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.5);
    benchmark::RegisterBenchmark(("LoadSnapshot/" + scene).c_str(), BM_LoadSnapshot, scene)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(0.5);
    for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
      const std::string base = scene + "/" + name(wl);
      for (SweepPath path : {SweepPath::simd, SweepPath::scalar}) {
        for (int threads : {1, 0}) {
          benchmark::RegisterBenchmark(("Sweep/" + base + "/" + name(path) + "/" + thread_label(threads)).c_str(),
                                       BM_Sweep, scene, wl, path, threads)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime()
              ->MinTime(0.3);
        }
      }
      benchmark::RegisterBenchmark(("SweepUnpooled/" + base + "/1thread").c_str(), BM_SweepUnpooled, scene, wl)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.3);
      benchmark::RegisterBenchmark(("EmbreeRay/" + base + "/1thread").c_str(), BM_EmbreeRay, scene, wl)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.3);
      if (wl == Workload::ray) continue;  // Bullet's capsule needs a radius; a ray has no ellipsoid
      for (int threads : {1, 0}) {
        benchmark::RegisterBenchmark(("SweepEllipsoid/" + base + "/simd/" + thread_label(threads)).c_str(),
                                     BM_SweepEllipsoid, scene, wl, threads)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(0.3);
      }
      benchmark::RegisterBenchmark(("BulletSweep/" + base + "/1thread").c_str(), BM_BulletSweep, scene, wl)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.3);
    }
  }
}

const int registered = (register_all(), 0);

}  // namespace
}  // namespace capsweep::bench
