#include <capsweep/sweep_ellipsoid.h>

#include <algorithm>

#include <capsweep/sweep.h>
#include "core/sweep_frame.h"

namespace capsweep {

namespace {
Vec3d divide(const Vec3d& v, const Vec3d& by) { return {v.x / by.x, v.y / by.y, v.z / by.z}; }
Vec3d multiply(const Vec3d& v, const Vec3d& by) { return {v.x * by.x, v.y * by.y, v.z * by.z}; }
}  // namespace

Capsule bounding_sphere(const Ellipsoid& e) {
  const float r = std::max(std::max(e.radii.x, e.radii.y), e.radii.z);
  return {e.centre, e.centre, r};
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

Status sweep_ellipsoid_triangle(const Ellipsoid& e, const Vec3& motion, const Triangle& triangle, SweepHit& hit) {
  hit = SweepHit{};
  if (Status s = check_ellipsoid_sweep(e, motion); s != Status::ok) return s;
  if (Status s = check_triangle(triangle); s != Status::ok) return s;
  sweep_ellipsoid_triangle_unchecked(e, motion, triangle, hit);
  return Status::ok;
}

}  // namespace capsweep
