// The discrete contact of contact.h in double precision, shared with the sweep kernel.
#pragma once

#include <capsweep/sweep.h>

#include "core/closest_point.h"

namespace capsweep {

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
