// World::validate on the claims a server sees (tools/claim_streams.h): each scene's crowd at
// 60 Hz (up to 300 agents, capsules and ellipsoids, colliding, jumping), each tick's claims one
// batch with the state the verdicts carried. ValidateClaims/<scene>/walking judges the genuine
// batches of 3 s of crowd time; .../mixed the same batches and, between them, as many batches with
// one cheat of each agent substituted (tools/claim_streams.h lists them). One thread: claims/s
// (items/s) is validations per second per core.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "bench/scenes.h"
#include "tools/claim_streams.h"

namespace capsweep::bench {
namespace {

struct ClaimsFixture {
  ClaimStreamSettings settings;
  ClaimBatches batches;
  std::vector<std::vector<ClaimedMove>> mixed;
};

const ClaimsFixture& claims_for(const std::string& scene) {
  static std::map<std::string, std::unique_ptr<ClaimsFixture>> cache;
  auto& slot = cache[scene];
  if (slot) return *slot;
  slot = std::make_unique<ClaimsFixture>();
  ClaimsFixture& f = *slot;
  f.settings.rate_hz = 60;
  f.settings.agents = 300;
  f.settings.seconds = 3;
  f.settings.seed = 1;
  f.settings.cheat_every = 1;
  run_claim_stream(world_for(scene), f.settings, &f.batches);
  for (std::size_t t = 0; t < f.batches.genuine.size(); ++t) {
    f.mixed.push_back(f.batches.genuine[t]);
    f.mixed.push_back(f.batches.with_cheats[t]);
  }
  return f;
}

void BM_ValidateClaims(benchmark::State& state, const std::string& scene, bool mixed) {
  const World& w = world_for(scene);
  const ClaimsFixture& f = claims_for(scene);
  const auto& batches = mixed ? f.mixed : f.batches.genuine;
  const ValidateSettings vs = stream_validate_settings(f.settings);
  BatchOptions one;
  one.threads = 1;
  std::size_t claims = 0, ok = 0;
  std::vector<std::vector<Verdict>> verdicts;
  for (const auto& b : batches) {
    verdicts.emplace_back(b.size());
    claims += b.size();
  }
  for (std::size_t t = 0; t < batches.size(); ++t) {
    w.validate(batches[t], vs, verdicts[t], one);
    for (const Verdict& v : verdicts[t]) ok += v.kind == VerdictKind::ok;
  }
  for (auto _ : state) {
    for (std::size_t t = 0; t < batches.size(); ++t) w.validate(batches[t], vs, verdicts[t], one);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(std::int64_t(state.iterations() * claims));
  state.counters["claims"] = double(claims);
  state.counters["ok_fraction"] = double(ok) / double(claims);
  state.counters["validations_per_s"] = benchmark::Counter(double(claims), benchmark::Counter::kIsIterationInvariantRate);
}

const bool registered = [] {
  for (const std::string& scene : scene_names()) {
    for (bool mixed : {false, true}) {
      benchmark::RegisterBenchmark(("ValidateClaims/" + scene + "/" + (mixed ? "mixed" : "walking") + "/1thread").c_str(),
                                   BM_ValidateClaims, scene, mixed)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->MinTime(0.5);
    }
  }
  return true;
}();

}  // namespace
}  // namespace capsweep::bench
