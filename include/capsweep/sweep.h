// Exact swept-capsule kernels (closed form: no sub-stepping, no bisection).
//
// A capsule (a, b, r) moving by d first touches an obstacle O at the smallest t in [0, 1] with
// dist(segment + t d, O) <= r. Equivalently, the point t d enters the Minkowski difference
// (O - segment) + ball(r). For a triangle, O - segment is a prism (the triangle extruded along
// the capsule axis); rounded by r it is the union of
//   - 5 face slabs: the two triangle faces and three edge-by-axis parallelograms, each
//     thickened by r along its normal,
//   - 9 edge cylinders of radius r (3 triangle edges at either end of the axis, and the 3
//     vertex-by-axis edges),
//   - 6 corner spheres of radius r,
// and the first entry into a union is the earliest entry into any of its parts. A slab entered
// through a side wall, or a cylinder through an end disc, is inside the neighbouring cylinder
// or sphere that is entered no later, so only offset faces, cylinder sides and spheres count.
// A start with dist <= r is reported as t = 0 with a push-out depth and normal (contact.h).
//
// Every kernel validates its input and returns Status::ok, or an error and a miss.
#pragma once

#include <capsweep/shapes.h>
#include <capsweep/status.h>
#include <capsweep/sweep_hit.h>

namespace capsweep {

Status sweep_capsule_triangle(const Capsule& capsule, const Vec3& motion, const Triangle& triangle, SweepHit& hit);
// The same for inputs that already passed check_sweep and check_triangle: a world checks each
// query once and each triangle when it is built, not once per candidate pair.
void sweep_capsule_triangle_unchecked(const Capsule& capsule, const Vec3& motion, const Triangle& triangle,
                                      SweepHit& hit);
Status sweep_sphere_triangle(const Vec3& center, float radius, const Vec3& motion, const Triangle& triangle,
                             SweepHit& hit);

// A moving capsule against a static one: the relative motion of one axis against the other's
// axis, rounded by the sum of the radii (a rounded parallelogram). `point` is on the obstacle's
// surface; feature edge = its side, vertex = a cap.
Status sweep_capsule_capsule(const Capsule& capsule, const Vec3& motion, const Capsule& obstacle, SweepHit& hit);
Status sweep_capsule_sphere(const Capsule& capsule, const Vec3& motion, const Vec3& center, float radius,
                            SweepHit& hit);
Status sweep_capsule_segment(const Capsule& capsule, const Vec3& motion, const Vec3& p, const Vec3& q, SweepHit& hit);
Status sweep_capsule_point(const Capsule& capsule, const Vec3& motion, const Vec3& p, SweepHit& hit);

// A contact time computed in double, as the float a SweepHit carries: rounded toward zero, so
// the reported t never lies past the true contact.
float round_time_down(double t);

}  // namespace capsweep
