// The end of World::move's tick with agents colliding: each agent swept against the others'
// start positions, but two may have moved into the same place. Those stay where they started,
// which can put a held agent back in the way of a third that moved into its start, and so on:
// rounds of holds, each only ever adding agents, so the answer is the same in any batch order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <capsweep/values.h>

#include "parallel/executor.h"

namespace capsweep {

// At most this many rounds: a cascade longer than that (agents queued into each other's starts)
// keeps its last overlaps, which the next tick's sweeps start from and push apart.
inline constexpr int kHoldRounds = 16;

// Whether two agents' capsules overlap, as the exact contact says (a refused capsule, NaN or out
// of range, counts as overlapping).
bool agents_overlap(const Capsule& a, const Capsule& b);

// held[i] = 1 for each agent that stays at starts[i] rather than ends[i]. Only agents that moved
// (moved[i] != 0) are ever held. Round 0 checks every mover's end against every agent's end; a
// later round checks only the movers near the starts of the agents held the round before (the
// only places that changed). A stop that says yes leaves the answer unfinished (the caller
// throws Cancelled).
std::vector<std::uint8_t> hold_overlapping_ends(std::span<const Capsule> starts, std::span<const Capsule> ends,
                                                std::span<const std::uint8_t> moved, parallel::StopCheck* stop = nullptr);

// The same answer, the obvious way: every round checks every mover against every agent's place
// (the start of those held, the end of the others). The reference hold_overlapping_ends is
// tested against.
std::vector<std::uint8_t> hold_overlapping_ends_every_round(std::span<const Capsule> starts,
                                                            std::span<const Capsule> ends,
                                                            std::span<const std::uint8_t> moved);

}  // namespace capsweep
