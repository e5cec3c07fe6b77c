// What a tick does for the instances that moved into its frame (World::posed), before each
// agent's own walk (issue 37; the rule is to move each thing while holding everything else
// still): an agent standing on a moving instance is carried with it (its feet placed as the
// instance moved them), an agent a moving instance runs into is pushed along the instance's
// motion where it stands, each as a sweep against the rest of the frame, so a lift never carries
// an agent through a ceiling; an agent that cannot get out of the way (a door closing on it
// against a wall) is crushed: it stays where it was, flagged. Internal to world/.
#pragma once

#include <cstdint>
#include <span>

#include <capsweep/world.h>

#include "core/body.h"

namespace capsweep {

struct WorldArrays;

// Where the frame's moving instances take one agent before its walk.
struct InstanceCarry {
  Vec3 offset;           // carried and pushed (zero when nothing moved it)
  bool crushed = false;  // it could not get out of a moving instance's way: it stays put
};

// Whether a tick on this frame has instances to carry or push agents with.
bool has_moving_instances(const WorldArrays& w);

// Agent `a` (checked, on `layers`: its own and the batch's) as the frame's moving instances take
// it; the skin and backoff are the solver's.
InstanceCarry carry_by_instances(const WorldArrays& w, const Agent& a, const MoveSettings& settings,
                                 std::uint32_t layers);

// The agents the pass moved, passed on (seed 004's rule, one thing moving at a time): an agent
// that ends the pass overlapping another that did not move with it pushes that one along its own
// motion, which may push a third, round after round (each round from the last round's places, so
// no order shows); a push the world blocks crushes the pushed agent, and an agent still
// overlapping another after the rounds, or overlapping one that was crushed, is crushed too (it
// stays where it was). `carry` holds each agent's pass (carry_by_instances) and is updated;
// agents not `valid` (refused by the batch) take no part.
void pass_pushes_on(const WorldArrays& w, std::span<const Agent> agents, std::span<const std::uint8_t> valid,
                    const MoveSettings& settings, std::uint32_t batch_layers, std::span<InstanceCarry> carry);

}  // namespace capsweep
