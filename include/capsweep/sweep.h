// One shape against one triangle: the exact sweeps (capsule, ray, segment, ellipsoid) and the contact of a shape that starts touching.
#pragma once

#include <capsweep/values.h>

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

// Discrete queries: how far apart a capsule and an obstacle are, and, when they overlap, the
// shortest push that separates them.

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
