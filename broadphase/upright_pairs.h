// A cheap exact rejection for agent pairs: agents are upright capsules, and two upright
// capsules that are far enough apart seen from above cannot touch. Used before the exact
// capsule-capsule sweep and contact (core/), never instead of a hit they would report.
#pragma once

#include <algorithm>
#include <cmath>

#include <capsweep/values.h>
#include "core/sweep_upright.h"

namespace capsweep {

// The largest coordinate magnitude of a moving capsule at its start and end: its part of the
// exactness tolerance apart_upright allows for (computed once for all the pairs of a sweep).
inline float moving_scale(const Capsule& moving, const Vec3& motion) {
  return std::max({max_abs_component(moving.a), max_abs_component(moving.b), max_abs_component(moving.a + motion),
                   max_abs_component(moving.b + motion)});
}

// Whether two upright capsules (axes exactly vertical, as agents are) stay apart while the
// first moves: seen from above, the moving one's axis draws a segment and the other's is a
// point, and the distance between those bounds the distance in space from below. A pair that
// clears it by more than the exactness tolerance cannot touch, and the exact capsule-capsule
// sweep is skipped (for upright pairs about 640 instructions with its checks, core/sweep_upright.h;
// for other poses the general kernel's about 4,100); anything else goes to that sweep.
// `scale` is moving_scale(moving, motion).
inline bool apart_upright(const Capsule& moving, const Vec3& motion, const Capsule& other, float scale) {
  if (!detail::is_upright(moving) || !detail::is_upright(other)) return false;
  const double px = double(other.a.x) - moving.a.x, pz = double(other.a.z) - moving.a.z;
  const double dx = motion.x, dz = motion.z, dd = dx * dx + dz * dz;
  const double s = dd > 0 ? std::clamp((px * dx + pz * dz) / dd, 0.0, 1.0) : 0.0;
  const double ex = px - s * dx, ez = pz - s * dz;
  const double reach = double(moving.radius) + double(other.radius);
  // The exactness tolerance: a sweep that stays farther than it from touching must miss, so the
  // exact sweep could only ever have missed here too, and answers never change.
  const float largest = std::max({scale, max_abs_component(other.a), max_abs_component(other.b)});
  const double margin = 1.01 * std::max(1e-4, 4e-7 * double(largest)) + 1e-7;
  return ex * ex + ez * ez > (reach + margin) * (reach + margin);
}

inline bool apart_upright(const Capsule& moving, const Vec3& motion, const Capsule& other) {
  return apart_upright(moving, motion, other, moving_scale(moving, motion));
}

}  // namespace capsweep
