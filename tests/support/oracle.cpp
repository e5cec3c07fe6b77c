#include "tests/support/oracle.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace oracle {

using capsweep::cross;
using capsweep::dot;
using capsweep::length;
using capsweep::length_sq;
using capsweep::to_double;

namespace {
Gap make_gap(const Vec3d& w) { return {length(w), w}; }
Gap closer(const Gap& a, const Gap& b) { return b.distance < a.distance ? b : a; }
}  // namespace

Gap point_segment(const Vec3d& p, const Vec3d& a, const Vec3d& b) {
  const Vec3d ab = b - a;
  const double ll = length_sq(ab);
  double s = ll > 0 ? dot(p - a, ab) / ll : 0.0;
  s = s < 0 ? 0 : (s > 1 ? 1 : s);
  return make_gap(p - (a + ab * s));
}

Gap point_triangle(const Vec3d& p, const Vec3d tri[3]) {
  // Inside the prism over the triangle: the plane distance; otherwise the nearest edge. A
  // triangle flatter than 1e-9 rad has no trustworthy plane: it is then its three edges (which
  // it differs from by less than 1e-9 of its size).
  const Vec3d e1 = tri[1] - tri[0], e2 = tri[2] - tri[0];
  const Vec3d n = cross(e1, e2);
  const double nn = length_sq(n);
  if (nn > 1e-18 * length_sq(e1) * length_sq(e2)) {
    bool inside = true;
    for (int i = 0; i < 3; ++i) {
      if (dot(cross(tri[(i + 1) % 3] - tri[i], p - tri[i]), n) < 0) inside = false;
    }
    if (inside) return make_gap(n * (dot(p - tri[0], n) / nn));
  }
  Gap g = point_segment(p, tri[0], tri[1]);
  g = closer(g, point_segment(p, tri[1], tri[2]));
  return closer(g, point_segment(p, tri[2], tri[0]));
}

Gap segment_segment(const Vec3d& p0, const Vec3d& p1, const Vec3d& q0, const Vec3d& q1) {
  // |p0 + s u - q0 - t v|^2 is convex on the unit square: its minimum is at the interior
  // stationary point, if there is one, or on the boundary (an endpoint against a segment).
  Gap g = point_segment(p0, q0, q1);
  g = closer(g, point_segment(p1, q0, q1));
  Gap h = point_segment(q0, p0, p1);
  g = closer(g, Gap{h.distance, -h.w});
  h = point_segment(q1, p0, p1);
  g = closer(g, Gap{h.distance, -h.w});
  const Vec3d u = p1 - p0, v = q1 - q0, r = p0 - q0;
  const double uu = dot(u, u), uv = dot(u, v), vv = dot(v, v), ur = dot(u, r), vr = dot(v, r);
  const double det = uu * vv - uv * uv;
  if (det > 1e-12 * uu * vv) {
    // Stationary point: u.(r + s u - t v) = 0 and v.(r + s u - t v) = 0.
    const double s = (uv * vr - vv * ur) / det, t = (uu * vr - uv * ur) / det;
    if (s > 0 && s < 1 && t > 0 && t < 1) g = closer(g, make_gap(r + u * s - v * t));
  }
  return g;
}

Gap segment_triangle(const Vec3d& p0, const Vec3d& p1, const Vec3d tri[3]) {
  const Vec3d e1 = tri[1] - tri[0], e2 = tri[2] - tri[0];
  const Vec3d n = cross(e1, e2);
  const double h0 = dot(p0 - tri[0], n), h1 = dot(p1 - tri[0], n);
  const bool flat = !(length_sq(n) > 1e-18 * length_sq(e1) * length_sq(e2));
  if (!flat && ((h0 < 0 && h1 > 0) || (h0 > 0 && h1 < 0))) {
    const Vec3d x = p0 + (p1 - p0) * (h0 / (h0 - h1));
    bool inside = true;
    for (int i = 0; i < 3; ++i) {
      if (dot(cross(tri[(i + 1) % 3] - tri[i], x - tri[i]), n) < 0) inside = false;
    }
    if (inside) return {0.0, {}};
  }
  Gap g = point_triangle(p0, tri);
  g = closer(g, point_triangle(p1, tri));
  for (int i = 0; i < 3; ++i) g = closer(g, segment_segment(p0, p1, tri[i], tri[(i + 1) % 3]));
  return g;
}

Obstacle triangle_obstacle(const capsweep::Triangle& t) {
  const Vec3d v0 = to_double(t.v[0]), v1 = to_double(t.v[1]), v2 = to_double(t.v[2]);
  return [=](const Vec3d& p0, const Vec3d& p1) {
    const Vec3d tri[3] = {v0, v1, v2};
    return segment_triangle(p0, p1, tri);
  };
}

Obstacle segment_obstacle(const capsweep::Vec3& a, const capsweep::Vec3& b) {
  const Vec3d q0 = to_double(a), q1 = to_double(b);
  return [=](const Vec3d& p0, const Vec3d& p1) { return segment_segment(p0, p1, q0, q1); };
}

std::optional<double> time_of_impact(const Obstacle& obstacle, const Vec3d& p0, const Vec3d& p1, const Vec3d& d,
                                     double R, double eta) {
  const double speed = length(d);
  double t = 0;
  for (int iter = 0; iter < 100000; ++iter) {
    const Gap g = obstacle(p0 + d * t, p1 + d * t);
    if (g.distance <= R + eta) return t;
    if (speed == 0) return std::nullopt;
    // Slope of f, made a little steeper so that rounding never lengthens the step.
    const double slope = std::min(dot(g.w, d) / g.distance, 0.0) - 1e-9 * speed;
    t += (g.distance - R) / -slope;
    if (t > 1) return std::nullopt;
  }
  return t;  // not reached for convex f; conservative: report contact here
}

double tolerance(double largest_coordinate) { return std::max(1e-4, 4e-7 * largest_coordinate); }

std::string judge(const capsweep::SweepHit& hit, const capsweep::Capsule& capsule, const capsweep::Vec3& motion,
                  double radius, const Obstacle& obstacle, double tol, double obstacle_radius) {
  std::ostringstream why;
  why.precision(17);
  const Vec3d a = to_double(capsule.a), b = to_double(capsule.b), d = to_double(motion);
  const double eta = tol / 8;
  const auto shrunk = time_of_impact(obstacle, a, b, d, std::max(radius - tol, 0.0), eta);
  if (!hit.hit) {
    if (shrunk) why << "missed, but the shrunk capsule touches at t=" << *shrunk;
    return why.str();
  }
  const double t = hit.t;
  const auto grown = time_of_impact(obstacle, a, b, d, radius + tol - eta, eta);
  if (!(t >= 0 && t <= 1)) why << "t=" << t << " outside [0,1]; ";
  if (!grown) why << "hit at t=" << t << " but the grown capsule never touches; ";
  else if (t < *grown) why << "t=" << t << " before the grown capsule's contact " << *grown << "; ";
  if (shrunk && t > *shrunk) why << "t=" << t << " after the shrunk capsule's contact " << *shrunk << "; ";
  const Gap at = obstacle(a + d * t, b + d * t);
  if (at.distance > radius + tol) why << "at t=" << t << " distance " << at.distance << " > r+tol; ";
  const Vec3d n = to_double(hit.normal);
  if (std::fabs(length(n) - 1) > 1e-5) why << "normal not unit; ";
  if (hit.t == 0.f) {
    // Starting in contact: depth pushes the capsule out to touching, and no further than needed.
    if (at.distance > 1e-6 * radius) {
      const double expect = std::max(radius - at.distance, 0.0);
      if (std::fabs(hit.depth - expect) > tol) why << "depth " << hit.depth << " != r - dist " << expect << "; ";
    } else if (hit.depth < radius - tol) {
      why << "depth " << hit.depth << " < r for a crossing axis; ";
    }
    const Vec3d push = n * double(hit.depth);
    const Gap out = obstacle(a + push, b + push);
    if (out.distance < radius - tol) why << "push-out leaves distance " << out.distance << "; ";
  } else {
    if (hit.depth != 0.f) why << "depth on a moving hit; ";
    // A ray or segment (radius 0) has no closest-point direction at contact: its normal must
    // face the motion (the face's, or an edge's or vertex's facing it).
    if (radius == 0 && dot(n, d) > 1e-6 * length(d)) why << "normal does not face the motion; ";
    // The normal is the direction between the closest points at the reported time.
    if (radius > 0 && at.distance > 0.5 * radius) {
      const double allowed = 2e-4 + 4 * tol / radius;
      const double err = length(n - at.w / at.distance);
      if (err > allowed) why << "normal off by " << err << " (allowed " << allowed << "); ";
    }
    // The point lies on the obstacle, about r from the capsule's axis.
    const Vec3d p = to_double(hit.point);
    const Gap on = obstacle(p, p);
    if (std::fabs(on.distance - obstacle_radius) > 2 * tol) why << "point " << on.distance << " off the obstacle; ";
    const Gap reach = segment_segment(a + d * t, b + d * t, p, p);
    const double moving_radius = radius - obstacle_radius;
    if (std::fabs(reach.distance - moving_radius) > 2 * tol) why << "point " << reach.distance << " from axis, not r; ";
  }
  return why.str();
}

}  // namespace oracle
