// The main job's crowd on the arena whose door slides and whose lift rises (tools/moving_arena.h)
// against the same crowd on the static arena (issue 37: "movement on the arena with the door and
// the lift against the static arena"): 2,000 agents, one thread, each iteration one tick of each
// crowd (the moving one's posed() included), timed apart; the counters give both agent-ticks/s
// and their ratio from one run. 600 iterations: the demo's 10 s, through a door cycle and most
// of a lift cycle and into the next. Validated before timed: 30 ticks of each crowd give the same
// bytes on 1 and 2 threads and end clear of the world.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>

#include "tools/arena.h"
#include "tools/crowd.h"
#include "tools/moving_arena.h"

namespace capsweep::bench {
namespace {

constexpr std::size_t kAgents = 2000;

CrowdSettings crowd_settings(bool moving, int threads) {
  CrowdSettings cs;
  cs.agents = kAgents;
  cs.seed = 1;
  cs.batch.threads = threads;
  if (moving) {
    cs.poses = [motion = ArenaMotion()](std::uint64_t, std::span<const Agent> agents) mutable {
      return motion.next(agents);
    };
  }
  return cs;
}

bool same_agents(const Crowd& a, const Crowd& b) {
  if (a.agents().size() != b.agents().size()) return false;
  for (std::size_t i = 0; i < a.agents().size(); ++i) {
    const Agent &x = a.agents()[i], &y = b.agents()[i];
    if (std::memcmp(&x.capsule, &y.capsule, sizeof(Capsule)) != 0 || a.results()[i].flags != b.results()[i].flags) {
      return false;
    }
  }
  return true;
}

// 30 ticks on 1 and 2 threads: the same bytes, no agent inside anything unflagged.
bool validated(const World& world, bool moving) {
  Crowd one(world, crowd_settings(moving, 1)), two(world, crowd_settings(moving, 2));
  for (int t = 0; t < 30; ++t) {
    one.tick();
    two.tick();
    const CrowdViolations v = one.check();
    if (!same_agents(one, two) || v.penetrating + v.overlapping > 0) return false;
  }
  return true;
}

double seconds_of(Crowd& crowd) {
  const auto start = std::chrono::steady_clock::now();
  crowd.tick();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BM_MovingArena(benchmark::State& state) {
  const World still(make_arena()), moving = make_moving_arena();
  if (!validated(still, false) || !validated(moving, true)) {
    state.SkipWithError("thread count changed a tick, or an agent ended inside the world");
    return;
  }
  Crowd on_still(still, crowd_settings(false, 1)), on_moving(moving, crowd_settings(true, 1));
  double still_seconds = 0, moving_seconds = 0;
  for (auto _ : state) {
    still_seconds += seconds_of(on_still);
    moving_seconds += seconds_of(on_moving);
  }
  const double ticks = double(state.iterations());
  const double still_rate = ticks * double(on_still.agents().size()) / still_seconds;
  const double moving_rate = ticks * double(on_moving.agents().size()) / moving_seconds;
  state.counters["agents"] = double(on_moving.agents().size());
  state.counters["static_agent_ticks_per_s"] = still_rate;
  state.counters["moving_agent_ticks_per_s"] = moving_rate;
  state.counters["moving_over_static"] = moving_rate / still_rate;
  state.counters["carried_agent_ticks"] = double(on_moving.totals().carried);
  state.counters["crushed_agent_ticks"] = double(on_moving.totals().crushed);
}

const int registered = [] {
  benchmark::RegisterBenchmark("MovingArena/crowd_2000/threads:1", BM_MovingArena)
      ->Iterations(600)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  return 0;
}();

}  // namespace
}  // namespace capsweep::bench
