// The capsule-capsule sweep for the pose agents are in: both axes exactly vertical (or points).
// The general kernel sweeps the moving axis against the obstacle's as a degenerate triangle,
// through the parts of that rounded prism (about 4,100 instructions with the input checks); for two
// upright axes the set
// of positions within reach is one upright capsule, and the sweep is a point entering it: a side
// cylinder and two end spheres, a few dozen operations in double.
#pragma once

#include <capsweep/values.h>

namespace capsweep::detail {

// Whether a capsule's axis is exactly vertical, or a point.
inline bool is_upright(const Capsule& c) { return c.a.x == c.b.x && c.a.z == c.b.z; }

// sweep_capsule_capsule for validated inputs (check_sweep, check_obstacle_capsule) that are both
// upright, when the start is clear of the obstacle: returns false, leaving `hit` alone, when
// either is not upright or the start lies within (or within rounding of) reach, which is the
// general kernel's to answer with its depth and push-out normal.
bool sweep_upright_capsules(const Capsule& moving, const Vec3& motion, const Capsule& obstacle, SweepHit& hit);

// The general kernel alone, whatever the pose: the reference the upright one is tested against.
void sweep_capsule_capsule_general(const Capsule& moving, const Vec3& motion, const Capsule& obstacle, SweepHit& hit);

}  // namespace capsweep::detail
