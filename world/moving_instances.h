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

}  // namespace capsweep
