// Whole-world sweeps on the workloads, one thread (per-core rate) and all threads. Before
// timing, every answer is checked against a plain loop over all triangles (no box culling) and
// the two thread counts must agree bit for bit.
#include <benchmark/benchmark.h>
#include <tbb/info.h>

#include <map>
#include <memory>
#include <stdexcept>

#include "cli/arena.h"
#include "cli/scene_loader.h"
#include "cli/workloads.h"
#include "core/sweep.h"

namespace {

using namespace capsweep;

const World& world_for(const std::string& scene) {
  static std::map<std::string, std::unique_ptr<World>> cache;
  auto& w = cache[scene];
  if (!w) {
    w = std::make_unique<World>(scene == "arena" ? make_arena() : load_scene(std::string(CAPSWEEP_SHARED_SCENES) + "/" + scene));
  }
  return *w;
}

SweepHit all_triangles(const World& w, const SweepQuery& q) {
  SweepHit best;
  for (std::size_t i = 0; i < w.triangle_count(); ++i) {
    SweepHit h;
    sweep_capsule_triangle(q.capsule, q.motion, w.triangles()[i], h);
    h.triangle = std::uint32_t(i);
    if (is_better_hit(h, best)) best = h;
  }
  return best;
}

void validate(const World& w, const std::vector<SweepQuery>& q) {
  std::vector<SweepHit> one(q.size()), all(q.size());
  w.sweep(q, one, {SweepPath::brute, 1});
  w.sweep(q, all, {SweepPath::brute, 0});
  for (std::size_t i = 0; i < q.size(); ++i) {
    if (!identical(one[i], all[i])) throw std::runtime_error("thread count changed an answer");
    if (i % 8 == 0 && !identical(one[i], all_triangles(w, q[i]))) throw std::runtime_error("box culling lost a contact");
  }
}

void BM_WorldSweep(benchmark::State& state, const std::string& scene, Workload workload, int threads) {
  const World& w = world_for(scene);
  const auto queries = make_workload(w, workload, 4096, 2026);
  try {
    validate(w, queries);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::vector<SweepHit> hits(queries.size());
  for (auto _ : state) {
    w.sweep(queries, hits, {SweepPath::brute, threads});
    benchmark::ClobberMemory();
  }
  const int n = threads > 0 ? threads : tbb::info::default_concurrency();
  state.SetItemsProcessed(state.iterations() * std::int64_t(queries.size()));
  state.counters["threads"] = n;
  state.counters["triangles"] = double(w.triangle_count());
}

void register_world_benchmarks() {
  for (const std::string scene : {"arena", "recast_dungeon.obj", "recast_nav_test.obj", "oa_am_thornish.obj"}) {
    for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range}) {
      for (int threads : {1, 0}) {
        const std::string label = "WorldSweep/brute/" + scene + "/" + name(wl) + (threads == 1 ? "/1thread" : "/allthreads");
        benchmark::RegisterBenchmark(label.c_str(), BM_WorldSweep, scene, wl, threads)->UseRealTime()->Unit(benchmark::kMillisecond);
      }
    }
  }
}

const int registered = (register_world_benchmarks(), 0);

}  // namespace
