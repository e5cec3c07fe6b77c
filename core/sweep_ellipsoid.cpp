#include <capsweep/sweep.h>

#include <algorithm>
#include <cmath>

#include "core/contact_core.h"
#include "core/ellipsoid_contact.h"
#include "core/sweep_frame.h"

namespace capsweep {

namespace {
Vec3d divide(const Vec3d& v, const Vec3d& by) { return {v.x / by.x, v.y / by.y, v.z / by.z}; }
Vec3d multiply(const Vec3d& v, const Vec3d& by) { return {v.x * by.x, v.y * by.y, v.z * by.z}; }
}  // namespace

Capsule bounding_capsule(const Ellipsoid& e) {
  // An ellipsoid with radii (a, b, a), b >= a, lies in the capsule of radius a around the
  // segment of half-length b - a on its long axis: at height u above the centre its section,
  // a sqrt(1 - u^2 / b^2), is within the capsule's, sqrt(a^2 - (u - b + a)^2) past the
  // cylinder, exactly when u <= b. Growing the shortest radius to the middle one keeps it inside.
  const float r[3] = {e.radii.x, e.radii.y, e.radii.z};
  const int longest = r[0] >= r[1] && r[0] >= r[2] ? 0 : (r[1] >= r[2] ? 1 : 2);
  const double radius = std::max(r[(longest + 1) % 3], r[(longest + 2) % 3]);
  Vec3d axis{};
  (longest == 0 ? axis.x : longest == 1 ? axis.y : axis.z) = double(r[longest]) - radius;  // exact
  // The float endpoints are the exact ones rounded, each by at most `slack` per coordinate:
  // growing the radius by sqrt(3) slack keeps every point of the exact capsule inside.
  const Vec3d c = to_double(e.centre);
  const Vec3 a = to_float(c - axis), b = to_float(c + axis);
  double slack = 0;
  for (const Vec3d& rounded : {to_double(a) - (c - axis), to_double(b) - (c + axis)}) {
    slack = std::max(slack, max_abs_component(rounded));
  }
  const float grown = float(radius + std::sqrt(3.0) * slack);
  return {a, b, double(grown) >= radius + std::sqrt(3.0) * slack ? grown : std::nextafter(grown, INFINITY)};
}

void sweep_ellipsoid_triangle_unchecked(const Ellipsoid& e, const Vec3& motion, const Triangle& triangle,
                                        SweepHit& hit) {
  const Vec3d centre = to_double(e.centre), radii = to_double(e.radii);
  detail::Frame f;
  f.e = {};
  f.d = divide(to_double(motion), radii);
  f.r = 1.0;
  for (int i = 0; i < 3; ++i) f.v[i] = divide(to_double(triangle.v[i]) - centre, radii);
  f.shape = classify_triangle(f.v);
  detail::Best best;
  detail::sweep_frame(f, best);
  hit = SweepHit{};
  if (!(best.t <= 1.0)) return;
  // x' = x / radii maps normals by its inverse transpose: n ~ n' / radii. A push s along the
  // world normal moves the sphere s |n' / radii| along n'.
  const Vec3d n = divide(best.normal, radii);
  const double len = length(n);
  hit.hit = true;
  hit.t = round_time_down(best.t);
  hit.normal = to_float(n / len);
  hit.point = to_float(centre + multiply(best.point, radii));
  hit.depth = float(best.depth / len);
  hit.feature = best.feature;
}

void ellipsoid_triangle_contact(const Ellipsoid& e, const Triangle& triangle, EllipsoidContact& out) {
  const Vec3d centre = to_double(e.centre), radii = to_double(e.radii);
  Vec3d v[3];
  for (int i = 0; i < 3; ++i) v[i] = divide(to_double(triangle.v[i]) - centre, radii);
  const detail::ContactD c = detail::contact({}, {}, 1.0, v, classify_triangle(v));
  out = EllipsoidContact{};
  out.distance = c.distance;
  out.overlapping = c.distance < 1.0;
  const Vec3d n = divide(c.normal, radii);
  const double len = length(n);
  out.normal = to_float(n / len);
  if (out.overlapping) out.depth = float(c.depth / len);
  out.point = to_float(centre + multiply(c.on_triangle, radii));
  out.feature = c.feature;
}

Status sweep_ellipsoid_triangle(const Ellipsoid& e, const Vec3& motion, const Triangle& triangle, SweepHit& hit) {
  hit = SweepHit{};
  if (Status s = check_ellipsoid_sweep(e, motion); s != Status::ok) return s;
  if (Status s = check_triangle(triangle); s != Status::ok) return s;
  sweep_ellipsoid_triangle_unchecked(e, motion, triangle, hit);
  return Status::ok;
}

}  // namespace capsweep
