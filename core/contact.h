// Discrete queries: how far apart a capsule and an obstacle are, and, when they overlap, the
// shortest push that separates them.
#pragma once

#include "core/closest_point.h"
#include "core/shapes.h"
#include "core/status.h"
#include "core/sweep_hit.h"

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

namespace detail {

// The same in double, for a capsule axis [p0, p1] with radius r against a triangle (possibly
// degenerate: a capsule obstacle is the triangle {b0, b1, b1}). Shared with the sweep kernel.
struct ContactD {
  double distance;
  Vec3d on_axis, on_triangle;
  Feature feature;
  double depth;   // r - distance when overlapping, with the exact push-out for crossing axes
  Vec3d normal;
};
ContactD contact(const Vec3d& p0, const Vec3d& p1, double r, const Vec3d v[3], const TriangleShape& shape);

}  // namespace detail
}  // namespace capsweep
