// The exact sweep in double, as the capsule and ellipsoid kernels share it. Internal.
#pragma once

#include <cmath>

#include <capsweep/values.h>
#include "core/closest_point.h"

namespace capsweep::detail {

// A sweep relative to the moving shape's first axis endpoint: axis [0, e], radius r, motion d,
// the triangle's vertices v in the same frame.
struct Frame {
  Vec3d e, d;
  double r;
  Vec3d v[3];
  TriangleShape shape;  // classify_triangle(v)
};

// The frame of axis [a, b], radius r, motion and triangle `tri`, relative to a (`origin`, set
// to a in double), the triangle classified: what sweep_validated sweeps. Inline: the
// one-triangle checks of movement (core/face_first.cpp) build it on their hot path too.
inline Frame frame_at(const Vec3& a, const Vec3& b, double r, const Vec3& motion, const Vec3 tri[3], Vec3d& origin) {
  origin = to_double(a);
  Frame f;
  f.e = to_double(b) - origin;
  f.d = to_double(motion);
  f.r = r;
  for (int i = 0; i < 3; ++i) f.v[i] = to_double(tri[i]) - origin;
  f.shape = classify_triangle(f.v);
  return f;
}

// The earliest contact: t = INFINITY when there is none within [0, 1].
struct Best {
  double t = INFINITY;
  Vec3d normal, point;  // point on the triangle (frame coordinates)
  Feature feature = Feature::none;
  double depth = 0;
};

// First t in [0, 1] at which x(t) = t d enters the sphere of radius r around `center` from
// outside, and the unit normal there (from the centre): a vertex's part of the prism, and an end
// of two upright capsules (core/sweep_upright.cpp).
bool enter_sphere(const Vec3d& center, double r, const Vec3d& d, double& t, Vec3d& normal);

// The first contact of the rounded prism's parts (see <capsweep/sweep.h>), or the start's
// contact (t = 0, depth, push-out normal) when the start is within reach. Parts that cannot be
// entered before the best contact found so far are not evaluated (nor the start's closest points
// when the axis lies beyond r of the triangle's plane): the answer is sweep_frame_every_part's,
// bit for bit (tests/core/sweep_frame_test.cpp).
void sweep_frame(const Frame& frame, Best& best);
// The same, evaluating every part: the reference the shortcuts are checked against.
void sweep_frame_every_part(const Frame& frame, Best& best);

// The SweepHit of a frame's best contact (`origin`: the frame's in world coordinates; t rounded
// down to float; `obstacle_radius` moves the point out to a capsule obstacle's surface).
void hit_from(const Best& best, const Vec3d& origin, double obstacle_radius, SweepHit& hit);

}  // namespace capsweep::detail
