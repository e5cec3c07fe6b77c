// The independent oracle the exact kernels are held against. It shares no code with core/:
// distances by its own decomposition, and time of impact by conservative advancement.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <capsweep/values.h>

namespace oracle {

using capsweep::Vec3d;

// Distance between a segment and an obstacle, with the difference vector
// w = (closest point on the segment) - (closest point on the obstacle). w is unique even when
// the closest points are not (distance between convex sets).
struct Gap {
  double distance;
  Vec3d w;
};

Gap point_segment(const Vec3d& p, const Vec3d& a, const Vec3d& b);
Gap point_triangle(const Vec3d& p, const Vec3d tri[3]);
Gap segment_segment(const Vec3d& p0, const Vec3d& p1, const Vec3d& q0, const Vec3d& q1);
Gap segment_triangle(const Vec3d& p0, const Vec3d& p1, const Vec3d tri[3]);

// Distance from the capsule axis [p0, p1] to a static obstacle.
using Obstacle = std::function<Gap(const Vec3d& p0, const Vec3d& p1)>;
Obstacle triangle_obstacle(const capsweep::Triangle& t);
Obstacle segment_obstacle(const capsweep::Vec3& a, const capsweep::Vec3& b);

// First t in [0, 1] at which the axis moved by t*d comes within R + eta of the obstacle, found
// by conservative advancement: f(t) = distance(axis + t d, obstacle) is convex in t (distance from
// a moving point to the convex set obstacle - axis), so the tangent f(t) + f'(t) (t' - t) bounds
// it from below and no contact at distance R is stepped over; |f'| <= |d| bounds the step as in
// classic conservative advancement, and the tangent only lengthens it. Returns a t with
// TOI(R + eta) <= t <= TOI(R), or nullopt if the distance never reaches R.
std::optional<double> time_of_impact(const Obstacle& obstacle, const Vec3d& p0, const Vec3d& p1, const Vec3d& d,
                                     double R, double eta);

// The tolerance of the brief: max(0.1 mm, 4e-7 x the largest coordinate magnitude involved).
double tolerance(double largest_coordinate);

// Whether `hit` (from a sweep of capsule by motion against obstacle, sum of radii `radius`)
// is exact: a hit lies between the contact times of the capsule shrunk and grown by tol, and at
// the reported t it touches within tol with a consistent normal and point; a miss is allowed
// only where the shrunk capsule never touches; a start in contact has a separating push-out.
// Returns an empty string when accepted, else why not.
// For a capsule obstacle, `obstacle` is its axis and obstacle_radius its radius (the moving
// capsule's radius is radius - obstacle_radius).
std::string judge(const capsweep::SweepHit& hit, const capsweep::Capsule& capsule, const capsweep::Vec3& motion,
                  double radius, const Obstacle& obstacle, double tol, double obstacle_radius = 0);

}  // namespace oracle
