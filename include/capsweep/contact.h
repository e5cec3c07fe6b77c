// Discrete queries: how far apart a capsule and an obstacle are, and, when they overlap, the
// shortest push that separates them.
#pragma once

#include <capsweep/shapes.h>
#include <capsweep/status.h>
#include <capsweep/sweep_hit.h>

namespace capsweep {

struct Contact {
  float distance = 0.f;   // between the capsule's axis and the obstacle's core (triangle or axis)
  bool overlapping = false;  // distance <= sum of radii (touching counts)
  float depth = 0.f;      // when overlapping: push-out distance along `normal`; else 0
  Vec3 normal;            // unit, from the obstacle toward the capsule
  Vec3 point;             // closest point on the obstacle's surface
  Vec3 point_on_axis;     // closest point on the capsule's axis
  Feature feature = Feature::none;
};

Status capsule_triangle_contact(const Capsule& capsule, const Triangle& triangle, Contact& out);
Status capsule_capsule_contact(const Capsule& capsule, const Capsule& obstacle, Contact& out);

}  // namespace capsweep
