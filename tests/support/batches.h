// One batch of every kind of request against a world (sweeps, agents, claimed moves, static
// capsules), from seeded workloads, adversarial placements and a crowd in motion: what the
// snapshot and service tests send through both paths and compare.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/world.h>

namespace batches {

struct Batches {
  std::vector<capsweep::SweepQuery> sweeps;   // tick, validate, long, adversarial, then rays and segments
  std::vector<capsweep::Agent> agents;        // a crowd after a few ticks, pressed together
  std::vector<capsweep::ClaimedMove> claims;  // the solid sweeps as claimed moves over 0.1 s
  std::vector<capsweep::Capsule> capsules;    // capsules along the sweeps (some overlapping)
};

// About `count` of each kind.
Batches make(const capsweep::World& world, std::size_t count, std::uint64_t seed);

}  // namespace batches
