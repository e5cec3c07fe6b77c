#include <capsweep/sweep.h>

#include <algorithm>
#include <cmath>

#include "core/closest_point.h"
#include "core/contact_core.h"
#include "core/sweep_frame.h"
#include "core/sweep_upright.h"

namespace capsweep {

using detail::Best;
using detail::enter_sphere;
using detail::Frame;

namespace {

// First t in [0, 1] at which x(t) = t d enters {y + h n : y in polygon, |h| <= r} through one of
// its two offset faces (Cyrus-Beck clipping against the slab's half-spaces).
bool enter_slab(const Vec3d* poly, int count, const Vec3d& n, double r, const Vec3d& d, double& t, Vec3d& normal) {
  Vec3d centroid;
  for (int k = 0; k < count; ++k) centroid += poly[k];
  centroid = centroid / double(count);
  double t_in = -INFINITY, t_out = INFINITY;
  bool via_face = false;
  Vec3d face_normal;
  // Half-space g.x <= h; along the ray g.x(t) = t (g.d).
  auto clip = [&](const Vec3d& g, double h, bool is_face) {
    const double gd = dot(g, d);
    if (gd == 0) {
      if (h < 0) t_in = INFINITY;  // parallel and outside: never inside
      return;
    }
    const double tt = h / gd;
    if (gd < 0) {
      if (tt > t_in) { t_in = tt; via_face = is_face; face_normal = g; }
    } else if (tt < t_out) {
      t_out = tt;
    }
  };
  const double c = dot(n, poly[0]);
  clip(n, c + r, true);
  clip(-n, r - c, true);
  for (int k = 0; k < count; ++k) {
    const Vec3d& p = poly[k];
    Vec3d m = cross(poly[(k + 1) % count] - p, n);
    if (dot(m, centroid - p) > 0) m = -m;
    clip(m, dot(m, p), false);
  }
  if (!via_face || !(t_in <= t_out) || t_in < 0 || t_in > 1) return false;
  t = t_in;
  normal = face_normal;
  return true;
}

// First t in [0, 1] at which x(t) = t d enters the cylinder of radius r around [p, q] through
// its side. With u = q - p and w = x(0) - p, the squared distance to the axis line times |u|^2
// is |u x (w + t d)|^2: a quadratic in t written with cross products for accuracy when d is
// nearly parallel to u.
bool enter_cylinder(const Vec3d& p, const Vec3d& q, double r, const Vec3d& d, double& t, Vec3d& normal) {
  const Vec3d u = q - p;
  const double uu = length_sq(u);
  if (uu == 0) return false;
  const Vec3d w = -p;
  const Vec3d ud = cross(u, d), uw = cross(u, w);
  const double a = length_sq(ud), b = 2 * dot(ud, uw), c = length_sq(uw) - r * r * uu;
  // Starting inside the infinite cylinder means overlap or entry through an end disc: not ours.
  if (c <= 0 || b >= 0) return false;
  const double disc = b * b - 4 * a * c;
  if (disc < 0) return false;
  const double tt = c / ((-b + std::sqrt(disc)) * 0.5);  // the smaller root, without cancellation
  if (tt > 1) return false;
  const Vec3d x = d * tt;
  const double s = dot(x - p, u) / uu;
  if (s < 0 || s > 1) return false;
  const Vec3d radial = x - (p + u * s);
  const double len = length(radial);
  if (!(len > 0)) return false;
  t = tt;
  normal = radial / len;
  return true;
}

}  // namespace

bool detail::enter_sphere(const Vec3d& center, double r, const Vec3d& d, double& t, Vec3d& normal) {
  const Vec3d w = -center;
  const double a = length_sq(d), b = 2 * dot(d, w), c = length_sq(w) - r * r;
  if (c <= 0 || b >= 0) return false;
  const double disc = b * b - 4 * a * c;
  if (disc < 0) return false;
  const double tt = c / ((-b + std::sqrt(disc)) * 0.5);
  if (tt > 1) return false;
  t = tt;
  normal = (d * tt - center) / r;
  normal = normal / length(normal);
  return true;
}

namespace {

// Whether the axis [0, e] certainly lies farther than r from the triangle: both ends on one side
// of its plane and beyond r of it (the plane's distance bounds the triangle's), with a margin far
// above double rounding so that a start the closest points would call an overlap is never missed.
bool clear_of_plane(const detail::Frame& f) {
  if (f.shape.kind != TriangleShape::proper) return false;
  const double s0 = -dot(f.v[0], f.shape.normal), s1 = dot(f.e - f.v[0], f.shape.normal);
  const double margin = 1e-9 * (f.r + std::fabs(s0) + std::fabs(s1) + length(f.v[0]));
  return (s0 > f.r + margin && s1 > f.r + margin) || (s0 < -(f.r + margin) && s1 < -(f.r + margin));
}

// sweep_frame, or with skip = false sweep_frame_every_part.
void sweep_parts(const Frame& f, Best& best, bool skip) {
  // A start within reach is an overlap, whichever way the capsule moves.
  if (!skip || !clear_of_plane(f)) {
    const detail::ContactD start = detail::contact({}, f.e, f.r, f.v, f.shape);
    if (start.distance <= f.r) {
      best = {0.0, start.normal, start.on_triangle, start.feature, start.depth};
      return;
    }
  }
  const Vec3d& e = f.e;
  const Vec3d& d = f.d;
  const Vec3d* v = f.v;
  const bool has_axis = length_sq(e) > 0;
  double t;
  Vec3d n;
  auto take = [&](double tt, const Vec3d& normal, const Vec3d& point, Feature feature) {
    if (tt < best.t) best = {tt, normal, point, feature, 0.0};
  };
  // Whether a part of the prism whose core (the point, segment or polygon it rounds by r) lies
  // `core` from the start can be entered before the best contact so far: x(t) = t d comes within
  // r of it no sooner than t = (core - r) / |d|. Parts that cannot are not evaluated, which makes
  // the common sweep onto a face cheap; a relative margin far above double rounding keeps ties
  // on the side of evaluating, so the answer is the full evaluation's, bit for bit.
  const double path = length(d);
  auto may_beat = [&](double core) {
    const double ahead = best.t * path;  // infinite (or NaN for no motion) before any contact
    return !skip || !(core - f.r > ahead + 1e-9 * (core + f.r + ahead));
  };
  auto from_start = [](const Vec3d& p, const Vec3d& q) { return length(closest_point_segment({}, p, q).point); };

  // x(t) on a face/edge/vertex of the prism, less r along the normal, is (triangle point) - (axis point).
  if (f.shape.kind == TriangleShape::proper) {
    const Vec3d at_a[3] = {v[0], v[1], v[2]};
    if (enter_slab(at_a, 3, f.shape.normal, f.r, d, t, n)) take(t, n, d * t - n * f.r, Feature::face);
    // The far end's face: its plane's distance bounds the triangle's.
    if (has_axis && may_beat(std::fabs(dot(v[0] - e, f.shape.normal)))) {
      const Vec3d at_b[3] = {v[0] - e, v[1] - e, v[2] - e};
      if (enter_slab(at_b, 3, f.shape.normal, f.r, d, t, n)) take(t, n, d * t - n * f.r + e, Feature::face);
    }
  }
  // What remains are the parts around the edges and vertices: those of edge i (its quad, the
  // edge swept along the axis, and its two cylinders) lie in the quad, whose distance from the
  // start is the edge's from the axis; a vertex's lie in both its edges' quads. That distance is
  // at least the axis's distance from the edge's line, which splits into two orthogonal parts:
  // across the line within the plane, and along the normal (the height above the plane). Each
  // is linear along the axis, so when both ends lie on one side the nearer end bounds it, and
  // the two bounds add in squares. The height matters: for a person standing on a face, the
  // face is met first and an edge passing under the body could only tie, yet the edge lies a
  // whole height away, so a few products spare the exact closest points of every edge part
  // (without it, only edges beyond the radius across the plane were spared). Only once
  // something was hit (before, nothing can be skipped); the margin (1e-9 x the frame's
  // magnitudes) is far above the products' rounding.
  double edge_bound[3] = {0, 0, 0};
  if (skip && f.shape.kind == TriangleShape::proper && best.t <= 1.0) {
    double scale = length(e);
    for (int i = 0; i < 3; ++i) scale = std::max(scale, length(v[i]));
    auto one_side = [](double s0, double s1) {  // the nearer end's distance, 0 across
      return s0 > 0 && s1 > 0 ? std::min(s0, s1) : s0 < 0 && s1 < 0 ? std::min(-s0, -s1) : 0.0;
    };
    const Vec3d& up = f.shape.normal;
    for (int i = 0; i < 3; ++i) {
      const Vec3d edge = v[(i + 1) % 3] - v[i];
      const Vec3d m = cross(up, edge);
      const double len = length(m);
      if (!(len > 0)) continue;
      const double across = one_side(-dot(v[i], m) / len, dot(e - v[i], m) / len);
      // Heights are taken from v[i]'s plane; the edge leaves it by at most `tilt` (the normal
      // of a sliver is only good to ~1e-9), so a point of the edge lies that much nearer.
      const double tilt = std::fabs(dot(edge, up));
      const double height = std::max(0.0, one_side(-dot(v[i], up), dot(e - v[i], up)) - tilt);
      edge_bound[i] = std::max(0.0, std::sqrt(across * across + height * height) - 1e-9 * scale);
    }
  }
  auto edge_may_beat = [&](int i) { return may_beat(edge_bound[i]); };
  auto vertex_may_beat = [&](int i) { return may_beat(std::max(edge_bound[i], edge_bound[(i + 2) % 3])); };
  // Every part below is asked edge_may_beat or vertex_may_beat first, and a vertex's bound is
  // one of its edges' (the same value, so the same answer): with no edge left, none is.
  if (!edge_may_beat(0) && !edge_may_beat(1) && !edge_may_beat(2)) return;
  if (has_axis) {
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      // The quad's points are p - u e (p on the edge, u in [0, 1]): its distance from the start
      // is the edge's from the axis.
      if (!edge_may_beat(i)) continue;
      const ClosestSegmentSegment edge_axis = closest_segment_segment(v[i], v[j], {}, e);
      if (!may_beat(length(edge_axis.on_first - edge_axis.on_second))) continue;
      const Vec3d pn = plane_normal(v[j] - v[i], e);
      if (length_sq(pn) == 0) continue;
      const Vec3d quad[4] = {v[i], v[j], v[j] - e, v[i] - e};
      if (enter_slab(quad, 4, pn, f.r, d, t, n)) {
        const Vec3d shift = d * t;
        take(t, n, closest_segment_segment(v[i], v[j], shift, e + shift).on_first, Feature::edge);
      }
    }
  }
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    if (!edge_may_beat(i)) continue;
    if (may_beat(from_start(v[i], v[j])) && enter_cylinder(v[i], v[j], f.r, d, t, n)) {
      take(t, n, closest_point_segment(d * t, v[i], v[j]).point, Feature::edge);
    }
    if (has_axis && may_beat(from_start(v[i] - e, v[j] - e)) && enter_cylinder(v[i] - e, v[j] - e, f.r, d, t, n)) {
      take(t, n, closest_point_segment(e + d * t, v[i], v[j]).point, Feature::edge);
    }
  }
  if (has_axis) {
    for (int i = 0; i < 3; ++i) {
      if (vertex_may_beat(i) && may_beat(from_start(v[i], v[i] - e)) && enter_cylinder(v[i], v[i] - e, f.r, d, t, n)) {
        take(t, n, v[i], Feature::vertex);
      }
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (!vertex_may_beat(i)) continue;
    if (may_beat(length(v[i])) && enter_sphere(v[i], f.r, d, t, n)) take(t, n, v[i], Feature::vertex);
    if (has_axis && may_beat(length(v[i] - e)) && enter_sphere(v[i] - e, f.r, d, t, n)) take(t, n, v[i], Feature::vertex);
  }
}

}  // namespace

void detail::sweep_frame(const Frame& f, Best& best) { sweep_parts(f, best, true); }

void detail::sweep_frame_every_part(const Frame& f, Best& best) { sweep_parts(f, best, false); }

namespace {

// The shared kernel: axis [a, b], radius r (already validated) against a possibly degenerate
// triangle; obstacle_radius moves the reported point out to a capsule obstacle's surface.
void sweep_validated(const Vec3& a, const Vec3& b, double r, const Vec3& motion, const Vec3 tri[3],
                     double obstacle_radius, SweepHit& hit) {
  Vec3d origin;
  const Frame f = detail::frame_at(a, b, r, motion, tri, origin);
  Best best;
  detail::sweep_frame(f, best);
  detail::hit_from(best, origin, obstacle_radius, hit);
}

}  // namespace

void detail::hit_from(const Best& best, const Vec3d& origin, double obstacle_radius, SweepHit& hit) {
  hit = SweepHit{};
  if (!(best.t <= 1.0)) return;
  hit.hit = true;
  hit.t = round_time_down(best.t);
  hit.normal = to_float(best.normal);
  hit.point = to_float(origin + best.point + best.normal * obstacle_radius);
  hit.depth = float(best.depth);
  hit.feature = best.feature;
}

float ray_radius(const Capsule& c, const Vec3& motion) {
  float largest = 0.f;
  for (const Vec3& v : {c.a, c.b, c.a + motion, c.b + motion}) largest = std::max(largest, max_abs_component(v));
  return float(std::max(1e-4, 4e-7 * double(largest)) / 2);
}

Capsule swept_capsule(const Capsule& c, const Vec3& motion) {
  if (c.radius != 0.f) return c;
  return {c.a, c.b, ray_radius(c, motion)};
}

float round_time_down(double t) {
  float tf = float(t);
  if (double(tf) > t) tf = std::nextafter(tf, 0.f);
  return tf < 0.f ? 0.f : tf;
}

Status sweep_capsule_triangle(const Capsule& capsule, const Vec3& motion, const Triangle& triangle, SweepHit& hit) {
  hit = SweepHit{};
  if (Status s = check_sweep(capsule, motion); s != Status::ok) return s;
  if (Status s = check_triangle(triangle); s != Status::ok) return s;
  sweep_capsule_triangle_unchecked(capsule, motion, triangle, hit);
  return Status::ok;
}

void sweep_capsule_triangle_unchecked(const Capsule& capsule, const Vec3& motion, const Triangle& triangle,
                                      SweepHit& hit) {
  const Capsule swept = swept_capsule(capsule, motion);
  sweep_validated(swept.a, swept.b, swept.radius, motion, triangle.v, 0.0, hit);
}

Status sweep_sphere_triangle(const Vec3& center, float radius, const Vec3& motion, const Triangle& triangle,
                             SweepHit& hit) {
  return sweep_capsule_triangle(Capsule{center, center, radius}, motion, triangle, hit);
}

void detail::sweep_capsule_capsule_general(const Capsule& capsule, const Vec3& motion, const Capsule& obstacle,
                                           SweepHit& hit) {
  const Vec3 axis[3] = {obstacle.a, obstacle.b, obstacle.b};
  const Capsule swept = swept_capsule(capsule, motion);
  sweep_validated(swept.a, swept.b, double(swept.radius) + double(obstacle.radius), motion, axis,
                  obstacle.radius, hit);
}

Status sweep_capsule_capsule(const Capsule& capsule, const Vec3& motion, const Capsule& obstacle, SweepHit& hit) {
  hit = SweepHit{};
  if (Status s = check_sweep(capsule, motion); s != Status::ok) return s;
  if (Status s = check_obstacle_capsule(obstacle); s != Status::ok) return s;
  // Agents are upright capsules: their pairs take the short kernel, unless they start in reach.
  if (!detail::sweep_upright_capsules(capsule, motion, obstacle, hit)) {
    detail::sweep_capsule_capsule_general(capsule, motion, obstacle, hit);
  }
  return Status::ok;
}

Status sweep_capsule_sphere(const Capsule& capsule, const Vec3& motion, const Vec3& center, float radius,
                            SweepHit& hit) {
  return sweep_capsule_capsule(capsule, motion, Capsule{center, center, radius}, hit);
}

Status sweep_capsule_segment(const Capsule& capsule, const Vec3& motion, const Vec3& p, const Vec3& q, SweepHit& hit) {
  return sweep_capsule_capsule(capsule, motion, Capsule{p, q, 0.f}, hit);
}

Status sweep_capsule_point(const Capsule& capsule, const Vec3& motion, const Vec3& p, SweepHit& hit) {
  return sweep_capsule_capsule(capsule, motion, Capsule{p, p, 0.f}, hit);
}

}  // namespace capsweep
