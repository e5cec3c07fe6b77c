// Crowds that navigate (issue 39): what planning and steering cost per agent-tick beside
// World::move's, at 2,000 and 10,000 agents on 1 and 2 threads, and the navmesh build per scene.
// Validated before timed: 20 ticks of the crowd give the same bytes on 1 and 2 threads, and no
// agent ends inside the skin.
#include <benchmark/benchmark.h>

#include <capsweep/navigation.h>

#include "bench/scenes.h"
#include "tools/nav_run.h"
#include "tools/workloads.h"

namespace capsweep::bench {
namespace {

const Capsule kPerson{{0, kPersonRadius, 0}, {0, kPersonRadius + kPersonAxis, 0}, kPersonRadius};

// The navmesh build of each scene (tiles in parallel), the 947k-triangle terrain included.
void BM_NavMeshBuild(benchmark::State& state, const std::string& scene, int threads) {
  const World& world = world_for(scene);
  const NavMeshSettings settings = navmesh_settings(MoveSettings{}, kPerson);
  std::size_t polygons = 0, tiles = 0;
  for (auto _ : state) {
    const NavMesh mesh = NavMesh::build(world, settings, threads);
    polygons = mesh.stats().polygons;
    tiles = mesh.stats().tiles;
  }
  if (polygons == 0) state.SkipWithError("no polygon");
  state.counters["triangles"] = double(world.triangle_count());
  state.counters["tiles"] = double(tiles);
  state.counters["polygons"] = double(polygons);
}

struct Level {
  World world;
  NavMesh navmesh;
};

// The scene for `agents` agents: five copies side by side past 2,000.
const Level& level_for(const std::string& scene, std::size_t agents) {
  static std::map<std::string, std::unique_ptr<Level>> levels;
  const std::string key = scene + (agents > 2000 ? "x5" : "");
  auto& slot = levels[key];
  if (!slot) {
    World world = agents > 2000 ? side_by_side(world_for(scene), 5) : world_for(scene);
    NavMesh navmesh = NavMesh::build(world, navmesh_settings(MoveSettings{}, kPerson));
    slot = std::make_unique<Level>(Level{std::move(world), std::move(navmesh)});
  }
  return *slot;
}

NavRunSettings run_settings(std::size_t agents, int threads) {
  NavRunSettings s;
  s.agents = agents;
  s.seed = 1;
  s.crowd.batch.threads = threads;
  s.check_segments = false;
  return s;
}

bool validated(const Level& l, std::size_t agents) {
  NavRun one(l.world, l.navmesh, run_settings(agents, 1)), two(l.world, l.navmesh, run_settings(agents, 2));
  for (int t = 0; t < 20; ++t) {
    one.tick();
    two.tick();
    if (one.state_hash() != two.state_hash()) return false;
  }
  return one.totals().penetrating == 0 && one.totals().overlapping == 0;
}

// One iteration is one tick, after 30 ticks that plan every agent's first path; the counters
// split each agent-tick into planning + steering and World::move.
void BM_NavCrowd(benchmark::State& state, const std::string& scene, std::size_t agents, int threads) {
  const Level& l = level_for(scene, agents);
  if (!validated(l, std::min<std::size_t>(agents, 500))) {
    state.SkipWithError("thread count changed a tick, or an agent ended inside the world");
    return;
  }
  NavRun run(l.world, l.navmesh, run_settings(agents, threads));
  for (int t = 0; t < 30; ++t) run.tick();
  const NavRunTotals start = run.totals();
  for (auto _ : state) run.tick();
  const NavRunTotals& end = run.totals();
  const double agent_ticks = double(end.agent_ticks - start.agent_ticks);
  const double planning = end.planning_seconds - start.planning_seconds, moving = end.moving_seconds - start.moving_seconds;
  state.counters["planning_us_per_agent_tick"] = 1e6 * planning / agent_ticks;
  state.counters["move_us_per_agent_tick"] = 1e6 * moving / agent_ticks;
  state.counters["planning_over_move"] = planning / moving;
  state.counters["agent_ticks_per_s"] = agent_ticks / (planning + moving);
}

const int registered = [] {
  for (const char* scene : {"recast_nav_test.obj", "recast_dungeon.obj", "recast_undulating.obj",
                            "0ad_corinthian_isthmus_4p.obj.gz"}) {
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(("NavMeshBuild/" + std::string(scene) + "/threads:" + std::to_string(threads)).c_str(),
                                   BM_NavMeshBuild, std::string(scene), threads)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  for (const char* scene : {"recast_nav_test.obj", "recast_dungeon.obj"}) {
    for (std::size_t agents : {std::size_t(2000), std::size_t(10000)}) {
      for (int threads : {1, 2}) {
        benchmark::RegisterBenchmark(("NavCrowd/" + std::string(scene) + "/agents:" + std::to_string(agents) +
                                      "/threads:" + std::to_string(threads)).c_str(),
                                     BM_NavCrowd, std::string(scene), agents, threads)
            ->Iterations(120)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
    }
  }
  return 0;
}();

}  // namespace
}  // namespace capsweep::bench
