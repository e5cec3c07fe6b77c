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
// Rays and moving segments are capsules of radius 0 (a ray: a = b). A zero-radius prism has no
// thickness, so a ray sliding along a face or an edge would touch it or not by the last bit of
// rounding. Such a sweep is answered as the sweep of the thin capsule swept_capsule() returns,
// of radius half the tolerance (max(0.1 mm, 4e-7 x the largest coordinate of the query's start
// and end) / 2): its t lies between the contact times of the ray and of the ray grown by the
// tolerance, which is what exact means here, and every kernel and path sees the same capsule.
// A face hit reports the face normal; a hit within that half-tolerance of an edge or vertex
// reports the edge's or vertex's normal, facing the motion.
//
// Every kernel validates its input and returns Status::ok, or an error and a miss.
#pragma once

#include <capsweep/shapes.h>
#include <capsweep/status.h>
#include <capsweep/sweep_hit.h>

namespace capsweep {

// The capsule a sweep of `capsule` by `motion` is answered with: the capsule itself, or for a
// ray or segment (radius 0) the same axis with radius ray_radius(capsule, motion).
Capsule swept_capsule(const Capsule& capsule, const Vec3& motion);
// Half the tolerance at the query: max(1e-4, 4e-7 x the largest |coordinate| of a, b, a + d,
// b + d) / 2, in metres.
float ray_radius(const Capsule& capsule, const Vec3& motion);

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
