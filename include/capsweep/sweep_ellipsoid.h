// Exact swept-ellipsoid kernel: an axis-aligned ellipsoid (centre, radii) moving by d against a
// triangle.
//
// Following Fauerby's collide-and-slide ("Improved Collision detection and Response", 2003):
// dividing every coordinate by the radii ("eSpace") turns the ellipsoid into a unit sphere, the
// triangle into another triangle and d into d / radii. The map is linear, so contact happens
// at the same t in both spaces. The unit sphere is then swept by the capsule kernel (a capsule
// with a = b), in double.
//
// The answer is given in world space:
// - `t` is the same t, rounded toward zero;
// - `normal` is the eSpace normal mapped through the inverse transpose (n / radii,
//   renormalised): the ellipsoid's surface normal at the contact;
// - `point` is the eSpace contact point on the triangle, times the radii;
// - `depth` (for a start in contact) is the push along `normal` that moves the sphere out by its
//   eSpace depth.
#pragma once

#include <capsweep/shapes.h>
#include <capsweep/status.h>
#include <capsweep/sweep_hit.h>

namespace capsweep {

Status sweep_ellipsoid_triangle(const Ellipsoid& ellipsoid, const Vec3& motion, const Triangle& triangle,
                                SweepHit& hit);
// The same for inputs that already passed check_ellipsoid_sweep and check_triangle.
void sweep_ellipsoid_triangle_unchecked(const Ellipsoid& ellipsoid, const Vec3& motion, const Triangle& triangle,
                                        SweepHit& hit);

// The smallest capsule along the ellipsoid's longest axis that holds it: the radius is the
// larger of the other two radii, and the axis runs between the centres of the end caps (a
// sphere, a = b, when the longest radius is that one too). The world's broad phase walks with it.
Capsule bounding_capsule(const Ellipsoid& ellipsoid);

}  // namespace capsweep
