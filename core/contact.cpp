#include "core/contact_core.h"

#include <cmath>

namespace capsweep::detail {

namespace {

// A deterministic unit vector perpendicular to u (u != 0).
Vec3d any_perpendicular(const Vec3d& u) {
  const Vec3d ax = std::fabs(u.x) <= std::fabs(u.y) && std::fabs(u.x) <= std::fabs(u.z) ? Vec3d{1, 0, 0}
                   : std::fabs(u.y) <= std::fabs(u.z)                                 ? Vec3d{0, 1, 0}
                                                                                       : Vec3d{0, 0, 1};
  const Vec3d n = cross(u, ax);
  return n / length(n);
}

// Push-out when the axis touches or crosses the triangle (distance ~ 0). In the frame of the
// Minkowski difference K = T - S (triangle minus axis, a prism), the origin lies in K and the
// shortest way out of K + ball(r) is r plus the distance to the nearest facet of K.
void core_push_out(const Vec3d& p0, const Vec3d& p1, double r, const Vec3d v[3], const TriangleShape& shape,
                   Vec3d& normal, double& depth) {
  const Vec3d e = p1 - p0;
  if (shape.kind == TriangleShape::proper) {
    const Vec3d& n = shape.normal;
    const double along = dot(n, e);
    if (!(std::fabs(along) > 1e-7 * length(e))) {
      normal = n;  // K is flat (axis parallel to the face): out along the face normal, front side
      depth = r;
      return;
    }
    // Facets of K: the triangle placed at either end of the axis, and one parallelogram per edge.
    const Vec3d out_a = along > 0 ? n : -n;  // T - p1 lies on the -e side of T - p0
    double best = dot(out_a, v[0] - p0);
    normal = out_a;
    if (const double c = dot(-out_a, v[0] - p1); c < best) { best = c; normal = -out_a; }
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      Vec3d m = plane_normal(v[j] - v[i], e);
      if (length_sq(m) == 0) continue;
      if (dot(m, v[k] - v[i]) > 0) m = -m;
      if (const double c = dot(m, v[i] - p0); c < best) { best = c; normal = m; }
    }
    depth = r + best;
    return;
  }
  // A degenerate triangle is a segment L (or a point): K is the flat parallelogram L - S.
  const Vec3d l = shape.kind == TriangleShape::segment ? v[shape.seg_to] - v[shape.seg_from] : Vec3d{};
  normal = plane_normal(l, e);
  if (length_sq(normal) == 0) {
    normal = length_sq(l) > 0 ? any_perpendicular(l) : length_sq(e) > 0 ? any_perpendicular(e) : Vec3d{0, 1, 0};
  }
  // Either side separates equally; prefer the one the capsule's centre lies on.
  const Vec3d centroid = (v[0] + v[1] + v[2]) / 3.0;
  double side = dot(normal, (p0 + p1) * 0.5 - centroid);
  if (side == 0) side = normal.x != 0 ? normal.x : normal.y != 0 ? normal.y : normal.z;
  if (side < 0) normal = -normal;
  depth = r;
}

}  // namespace

ContactD contact(const Vec3d& p0, const Vec3d& p1, double r, const Vec3d v[3], const TriangleShape& shape) {
  const ClosestSegmentTriangle c = closest_segment_triangle(p0, p1, v, shape);
  ContactD out{c.distance, c.on_segment, c.on_triangle, c.feature, 0.0, {}};
  // Far enough from zero that the direction between the closest points is accurate.
  if (c.distance > 1e-6 * r) {
    out.normal = (c.on_segment - c.on_triangle) / c.distance;
    out.depth = c.distance < r ? r - c.distance : 0.0;
    return out;
  }
  core_push_out(p0, p1, r, v, shape, out.normal, out.depth);
  // Where the pushed-out capsule touches: its closest point on the triangle.
  const Vec3d push = out.normal * out.depth;
  const ClosestSegmentTriangle touch = closest_segment_triangle(p0 + push, p1 + push, v, shape);
  out.on_triangle = touch.on_triangle;
  out.on_axis = touch.on_segment - push;
  out.feature = touch.feature;
  return out;
}

}  // namespace capsweep::detail

namespace capsweep {

namespace {
Contact to_contact(const detail::ContactD& c, double r, double obstacle_radius, const Vec3d& origin) {
  Contact out;
  out.distance = float(c.distance);
  out.overlapping = c.distance <= r;
  out.depth = out.overlapping ? float(c.depth) : 0.f;
  out.normal = to_float(c.normal);
  out.point = to_float(origin + c.on_triangle + c.normal * obstacle_radius);
  out.point_on_axis = to_float(origin + c.on_axis);
  out.feature = c.feature;
  return out;
}
}  // namespace

Status capsule_triangle_contact(const Capsule& capsule, const Triangle& triangle, Contact& out) {
  out = Contact{};
  if (Status s = check_capsule(capsule); s != Status::ok) return s;
  if (Status s = check_triangle(triangle); s != Status::ok) return s;
  // Work relative to the capsule so that far-from-origin worlds keep their precision.
  const Vec3d origin = to_double(capsule.a);
  const Vec3d v[3] = {to_double(triangle.v[0]) - origin, to_double(triangle.v[1]) - origin,
                      to_double(triangle.v[2]) - origin};
  const double r = capsule.radius;
  out = to_contact(detail::contact({}, to_double(capsule.b) - origin, r, v, classify_triangle(v)), r, 0.0, origin);
  return Status::ok;
}

Status capsule_capsule_contact(const Capsule& capsule, const Capsule& obstacle, Contact& out) {
  out = Contact{};
  if (Status s = check_capsule(capsule); s != Status::ok) return s;
  if (Status s = check_obstacle_capsule(obstacle); s != Status::ok) return s;
  // The obstacle's axis is the degenerate triangle {b0, b1, b1}; the radii add up.
  const Vec3d origin = to_double(capsule.a);
  const Vec3d b0 = to_double(obstacle.a) - origin, b1 = to_double(obstacle.b) - origin;
  const Vec3d v[3] = {b0, b1, b1};
  const double r = double(capsule.radius) + double(obstacle.radius);
  out = to_contact(detail::contact({}, to_double(capsule.b) - origin, r, v, classify_triangle(v)), r,
                   obstacle.radius, origin);
  return Status::ok;
}

}  // namespace capsweep
