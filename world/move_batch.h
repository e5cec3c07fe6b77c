// World::move's batch as capsweep's own layers drive it (tests, bench): the number of agents in
// flight together, and the work it has done. Internal: never included by a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <capsweep/world.h>

namespace capsweep {

// World::move with up to `in_flight` agents of a worker's range in flight together (1 to
// kSweepChunk; World::move: kSweepChunk), their waiting world sweeps answered together. 1 runs
// each agent's tick alone through move_agent, every sweep asked of its collider as it comes:
// the reference the tests hold the batched tick to, byte for byte.
std::size_t move_agents(const World& world, std::span<const Agent> agents, const MoveSettings& settings,
                        std::span<MoveResult> results, const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status, std::size_t in_flight, MoveCache* cache = nullptr);

// Capsule-capsule sweeps World::move has run against other agents since the process started
// (all threads): for tests that count work instead of timing it.
std::uint64_t agent_pair_sweeps();

}  // namespace capsweep
