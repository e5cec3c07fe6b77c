// World::move on every scene: 10,000 walking agents, or as many as the scene holds standing
// apart (2,000 on the 40 m arena), agent-vs-agent off and on, one thread (per core) and all
// threads; capsules (Move/...) and the same people as ellipsoids (MoveEllipsoid/..., radii 0.35,
// 0.9, 0.35); MoveProbing/... is Move/... with every agent probing for ground instead of checking
// the triangle it carries; MoveScale/... is Move/... at 2,000, 10,000 and 100,000 agents on one
// thread (a scene that cannot hold that many standing apart skips the row and says how many it
// holds). Validated before timed: one thread and all threads give identical bytes. Counters:
// agent-ticks/s and sweeps per agent-tick. (Where the rest of the time goes: perf, see README.)
// Crowd/... is the whole run: 2,000 agents walking 300 ticks (the `capsweep crowd` of
// the README), agents off and on, 1 thread and all, each agent's neighbourhood kept between
// ticks (MoveCache) or not, timed over World::move alone; validated first: the run with the
// cache ends in the same bytes as the run without. Counters: agent-ticks/s, sweeps and
// neighbourhood gatherings per agent-tick.
#include <benchmark/benchmark.h>

#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "bench/scenes.h"
#include "world/world_arrays.h"
#include "world/move_batch.h"
#include "world/sweeps.h"
#include "tools/crowd.h"

namespace capsweep::bench {
namespace {

struct MoveFixture {
  std::vector<Agent> agents;         // a crowd 30 ticks into its walk
  std::vector<ClaimedMove> claims;   // every segment it travels in the next 10 ticks, with its state
};

const MoveFixture& fixture(const std::string& scene, AgentShape shape) {
  static std::map<std::pair<std::string, AgentShape>, std::unique_ptr<MoveFixture>> cache;
  auto& slot = cache[{scene, shape}];
  if (slot) return *slot;
  slot = std::make_unique<MoveFixture>();
  const World& w = world_for(scene);
  CrowdSettings cs;
  cs.agents = scene == "arena" ? 2000 : 10000;
  cs.seed = 5;
  cs.up_to_capacity = true;  // the dungeon holds about 2,600 people standing apart
  cs.agent_shapes = {shape};
  Crowd crowd(w, cs);
  for (int i = 0; i < 30; ++i) crowd.tick();
  slot->agents = crowd.agents();
  CrowdSettings traced = cs;
  traced.trace = true;
  Crowd walkers(w, traced);
  for (int t = 0; t < 40; ++t) {
    walkers.tick();
    if (t >= 30) walkers.claims(slot->claims);
  }
  return *slot;
}

bool same(const MoveResult& a, const MoveResult& b) {
  return std::memcmp(&a.capsule, &b.capsule, sizeof(Capsule)) == 0 &&
         std::memcmp(&a.ellipsoid, &b.ellipsoid, sizeof(Ellipsoid)) == 0 && a.flags == b.flags && a.sweeps == b.sweeps;
}
bool same(const Verdict& a, const Verdict& b) {
  return a.kind == b.kind && std::memcmp(&a.corrected, &b.corrected, sizeof(Capsule)) == 0 &&
         std::memcmp(&a.corrected_ellipsoid, &b.corrected_ellipsoid, sizeof(Ellipsoid)) == 0;
}

// Every benchmark validates before it times: the batch `run(options, answers)` on one thread
// and on `threads` gives the same answers (`out` keeps the second).
template <class Answer, class Run>
bool one_thread_agrees(int threads, std::vector<Answer>& out, Run run) {
  BatchOptions one, chosen;
  one.threads = 1;
  chosen.threads = threads;
  std::vector<Answer> reference(out.size());
  run(one, reference);
  run(chosen, out);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!same(reference[i], out[i])) return false;
  }
  return true;
}

// `carried`: each agent carries the ground triangle its last tick stood on (Agent::ground_triangle,
// as the crowd passes it); false: every agent probes for ground (the solver before the hint).
// `in_flight`: how many agents of a worker's range wait for their world sweeps together (the tick
// as a batch: kSweepChunk, as World::move runs it; 1: one agent at a time, the tick before it).
void BM_Move(benchmark::State& state, const std::string& scene, AgentShape shape, bool agents_collide, int threads,
             bool carried, std::size_t in_flight) {
  const World& w = world_for(scene);
  MoveFixture probing;
  const MoveFixture& f = carried ? fixture(scene, shape) : probing;
  if (!carried) {
    probing.agents = fixture(scene, shape).agents;
    for (Agent& a : probing.agents) a.ground_triangle = kNoTriangle;
  }
  MoveSettings ms;
  ms.agents_collide = agents_collide;
  BatchOptions chosen;
  chosen.threads = threads;
  std::vector<MoveResult> results(f.agents.size());
  const auto move = [&](const BatchOptions& o, std::span<MoveResult> out) {
    move_agents(w, f.agents, ms, out, o, {}, {}, in_flight);
  };
  if (!one_thread_agrees(threads, results, move)) {
    state.SkipWithError("thread count changed a move");
    return;
  }
  if (in_flight != kSweepChunk) {
    std::vector<MoveResult> batched(f.agents.size());
    w.move(f.agents, ms, batched, chosen);
    for (std::size_t i = 0; i < batched.size(); ++i) {
      if (!same(batched[i], results[i])) {
        state.SkipWithError("the batched tick changed a move");
        return;
      }
    }
  }
  for (auto _ : state) {
    move(chosen, results);
    benchmark::ClobberMemory();
  }
  double sweeps = 0;
  for (const MoveResult& r : results) sweeps += r.sweeps;
  const double n = double(f.agents.size());
  state.SetItemsProcessed(std::int64_t(state.iterations() * f.agents.size()));
  state.counters["agents"] = n;
  state.counters["sweeps_per_agent_tick"] = sweeps / n;
  state.counters["agent_ticks_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
}

// A crowd of `agents` (or as many as the scene holds standing apart), 30 ticks into its walk.
const std::vector<Agent>& scaled_crowd(const std::string& scene, std::size_t agents) {
  static std::map<std::pair<std::string, std::size_t>, std::vector<Agent>> cache;
  auto [slot, fresh] = cache.try_emplace({scene, agents});
  if (!fresh) return slot->second;
  CrowdSettings cs;
  cs.agents = agents;
  cs.seed = 5;
  cs.up_to_capacity = true;
  Crowd crowd(world_for(scene), cs);
  for (int i = 0; i < 30; ++i) crowd.tick();
  slot->second = crowd.agents();
  return slot->second;
}

void BM_MoveScale(benchmark::State& state, const std::string& scene, std::size_t agents, bool agents_collide) {
  const World& w = world_for(scene);
  const std::vector<Agent>& crowd = scaled_crowd(scene, agents);
  if (crowd.size() < agents) {
    state.SkipWithError(("the scene holds " + std::to_string(crowd.size()) + " agents standing apart").c_str());
    return;
  }
  MoveSettings ms;
  ms.agents_collide = agents_collide;
  std::vector<MoveResult> results(crowd.size());
  if (!one_thread_agrees(0, results, [&](const BatchOptions& o, auto& out) { w.move(crowd, ms, out, o); })) {
    state.SkipWithError("thread count changed a move");
    return;
  }
  BatchOptions one;
  one.threads = 1;
  for (auto _ : state) {
    w.move(crowd, ms, results, one);
    benchmark::ClobberMemory();
  }
  double sweeps = 0;
  for (const MoveResult& r : results) sweeps += r.sweeps;
  const double n = double(crowd.size());
  state.SetItemsProcessed(std::int64_t(state.iterations() * crowd.size()));
  state.counters["agents"] = n;
  state.counters["sweeps_per_agent_tick"] = sweeps / n;
  state.counters["agent_ticks_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
}

// Whole crowd runs (CrowdSettings: 2,000 agents, seed 3, 300 ticks), the time World::move took.
std::uint64_t crowd_hash(const std::vector<Agent>& agents) {
  std::uint64_t h = 1469598103934665603ull;
  for (const Agent& a : agents) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&a.capsule);
    for (std::size_t k = 0; k < sizeof(Capsule); ++k) h = (h ^ p[k]) * 1099511628211ull;
  }
  return h;
}

void BM_Crowd(benchmark::State& state, const std::string& scene, bool agents_collide, int threads, bool cache) {
  const World& w = world_for(scene);
  constexpr int kTicks = 300;
  CrowdSettings cs;
  cs.agents = 2000;
  cs.seed = 3;
  cs.up_to_capacity = true;
  cs.move.agents_collide = agents_collide;
  cs.batch.threads = threads;
  cs.keep_neighbourhoods = cache;
  // The check, once per scene and agents on or off: 60 ticks with and without the cache end in
  // the same bytes.
  static std::map<std::pair<std::string, bool>, bool> checked;
  if (!checked[{scene, agents_collide}]) {
    std::uint64_t end[2];
    for (int kept : {0, 1}) {
      CrowdSettings check = cs;
      check.keep_neighbourhoods = kept == 1;
      Crowd crowd(w, check);
      for (int t = 0; t < 60; ++t) crowd.tick();
      end[kept] = crowd_hash(crowd.agents());
    }
    if (end[0] != end[1]) {
      state.SkipWithError("the kept neighbourhoods changed a move");
      return;
    }
    checked[{scene, agents_collide}] = true;
  }
  double seconds = 0, agent_ticks = 0, sweeps = 0, gathered = 0, uncached = 0;
  for (auto _ : state) {
    Crowd crowd(w, cs);
    for (int t = 0; t < kTicks; ++t) crowd.tick();
    state.SetIterationTime(crowd.totals().move_seconds);
    seconds += crowd.totals().move_seconds;
    agent_ticks += double(crowd.totals().agent_ticks);
    sweeps += double(crowd.totals().sweeps);
    gathered += double(crowd.neighbourhoods().counts().gathered);
    uncached += double(crowd.neighbourhoods().counts().uncached);
  }
  state.counters["agents"] = agent_ticks / double(kTicks) / double(state.iterations());
  state.counters["agent_ticks_per_s"] = agent_ticks / seconds;
  state.counters["sweeps_per_agent_tick"] = sweeps / agent_ticks;
  state.counters["gathered_per_agent_tick"] = gathered / agent_ticks;
  state.counters["uncached_per_agent_tick"] = uncached / agent_ticks;
}

// World::validate on the same crowd's own moves (each traced segment, with the state its agent
// started the tick in), speed limit on: validations/s.
void BM_Validate(benchmark::State& state, const std::string& scene, AgentShape shape, int threads) {
  const World& w = world_for(scene);
  const MoveFixture& f = fixture(scene, shape);
  ValidateSettings vs;
  vs.max_speed = 7;
  vs.rule = ClaimRule::straight_segment;  // the crowd's traced segments
  BatchOptions chosen;
  chosen.threads = threads;
  std::vector<Verdict> verdicts(f.claims.size());
  if (!one_thread_agrees(threads, verdicts,
                         [&](const BatchOptions& o, auto& out) { w.validate(f.claims, vs, out, o); })) {
    state.SkipWithError("thread count changed a verdict");
    return;
  }
  std::size_t ok = 0;
  for (const Verdict& v : verdicts) ok += v.kind == VerdictKind::ok;
  for (auto _ : state) {
    w.validate(f.claims, vs, verdicts, chosen);
    benchmark::ClobberMemory();
  }
  const double n = double(f.claims.size());
  state.SetItemsProcessed(std::int64_t(state.iterations() * f.claims.size()));
  state.counters["moves"] = n;
  state.counters["ok_fraction"] = double(ok) / n;
  state.counters["validations_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsIterationInvariantRate);
}

const bool registered = [] {
  for (const std::string& scene : scene_names()) {
    for (bool collide : {false, true}) {
      for (int threads : {1, 0}) {
        for (bool cache : {true, false}) {
          benchmark::RegisterBenchmark(("Crowd/" + scene + "/" + (collide ? "agents_on" : "agents_off") + "/" +
                                        (threads == 1 ? "1thread" : "allthreads") + "/" + (cache ? "kept" : "none"))
                                           .c_str(),
                                       BM_Crowd, scene, collide, threads, cache)
              ->Unit(benchmark::kMillisecond)
              ->UseManualTime()
              ->Iterations(1);
        }
      }
    }
    for (AgentShape shape : {AgentShape::capsule, AgentShape::ellipsoid}) {
      const std::string suffix = shape == AgentShape::capsule ? "" : "Ellipsoid";
      for (bool collide : {false, true}) {
        for (int threads : {1, 0}) {
          benchmark::RegisterBenchmark(("Move" + suffix + "/" + scene + "/" + (collide ? "agents_on" : "agents_off") +
                                        "/" + (threads == 1 ? "1thread" : "allthreads"))
                                           .c_str(),
                                       BM_Move, scene, shape, collide, threads, true, kSweepChunk)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime()
              ->MinTime(1.0);
        }
      }
      if (shape == AgentShape::capsule) {
        // Beside Move/.../1thread in the same run: the tick one agent at a time.
        for (bool collide : {false, true}) {
          benchmark::RegisterBenchmark(("MoveOneAtATime/" + scene + "/" + (collide ? "agents_on" : "agents_off") + "/1thread").c_str(),
                                       BM_Move, scene, shape, collide, 1, true, std::size_t(1))
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime()
              ->MinTime(1.0);
        }
        for (bool collide : {false, true}) {
          benchmark::RegisterBenchmark(("MoveProbing/" + scene + "/" + (collide ? "agents_on" : "agents_off") + "/1thread").c_str(),
                                       BM_Move, scene, shape, collide, 1, false, kSweepChunk)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime()
              ->MinTime(1.0);
        }
      }
      if (shape == AgentShape::capsule) {
        for (std::size_t agents : {2000, 10000, 100000}) {
          for (bool collide : {false, true}) {
            benchmark::RegisterBenchmark(("MoveScale/" + scene + "/" + std::to_string(agents) + "/" +
                                          (collide ? "agents_on" : "agents_off") + "/1thread")
                                             .c_str(),
                                         BM_MoveScale, scene, agents, collide)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime()
                ->MinTime(1.0);
          }
        }
      }
      for (int threads : {1, 0}) {
        benchmark::RegisterBenchmark(
            ("Validate" + suffix + "/" + scene + "/" + (threads == 1 ? "1thread" : "allthreads")).c_str(), BM_Validate,
            scene, shape, threads)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime()
            ->MinTime(0.5);
      }
    }
  }
  return true;
}();

}  // namespace
}  // namespace capsweep::bench
