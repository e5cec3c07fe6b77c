#include "core/closest_point.h"

#include <algorithm>
#include <cmath>

namespace capsweep {

// Below this sine of the angle between two directions they count as parallel. Normals of
// planes spanned by less-parallel vectors are accurate to ~1e-9 in double.
static constexpr double kParallelSine = 1e-7;

Vec3d plane_normal(const Vec3d& u, const Vec3d& w) {
  const Vec3d n = cross(u, w);
  const double nn = length_sq(n);
  if (!(nn > kParallelSine * kParallelSine * length_sq(u) * length_sq(w))) return {};
  return n / std::sqrt(nn);
}

TriangleShape classify_triangle(const Vec3d v[3]) {
  TriangleShape shape;
  // The normal is best conditioned at the vertex opposite the longest edge.
  const double len[3] = {length_sq(v[1] - v[0]), length_sq(v[2] - v[1]), length_sq(v[0] - v[2])};
  const int longest = int(std::max_element(len, len + 3) - len);  // edge (longest, longest+1)
  const int apex = (longest + 2) % 3;
  shape.normal = plane_normal(v[(apex + 1) % 3] - v[apex], v[(apex + 2) % 3] - v[apex]);
  if (length_sq(shape.normal) > 0) {
    // The apex-based cross product has the triangle's own winding.
    if (dot(shape.normal, cross(v[1] - v[0], v[2] - v[0])) < 0) shape.normal = -shape.normal;
    shape.kind = TriangleShape::proper;
  } else if (len[longest] > 0) {
    shape.kind = TriangleShape::segment;
    shape.seg_from = longest;
    shape.seg_to = (longest + 1) % 3;
  } else {
    shape.kind = TriangleShape::point;
  }
  return shape;
}

ClosestOnSegment closest_point_segment(const Vec3d& p, const Vec3d& a, const Vec3d& b) {
  const Vec3d ab = b - a;
  const double denom = length_sq(ab);
  double s = denom > 0 ? dot(p - a, ab) / denom : 0.0;
  s = std::clamp(s, 0.0, 1.0);
  return {a + ab * s, s};
}

ClosestSegmentSegment closest_segment_segment(const Vec3d& p0, const Vec3d& p1, const Vec3d& q0,
                                              const Vec3d& q1) {
  // Ericson 5.1.9: minimise |p0 + s d1 - (q0 + t d2)| over the unit square.
  const Vec3d d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = length_sq(d1), e = length_sq(d2), f = dot(d2, r);
  double s = 0, t = 0;
  if (a <= 0 && e <= 0) {
    s = t = 0;
  } else if (a <= 0) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = dot(d1, r);
    if (e <= 0) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = dot(d1, d2);
      const double denom = a * e - b * b;  // >= 0; 0 when parallel
      s = denom > 1e-14 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  return {p0 + d1 * s, q0 + d2 * t, s, t};
}

namespace {

Feature segment_feature(double s) { return (s > 0 && s < 1) ? Feature::edge : Feature::vertex; }

ClosestOnTriangle closest_point_proper_triangle(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c,
                                                const Vec3d& normal) {
  // Ericson 5.1.5: find the Voronoi region of p by barycentric tests.
  const Vec3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0 && d2 <= 0) return {a, Feature::vertex};
  const Vec3d bp = p - b;
  const double d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0 && d4 <= d3) return {b, Feature::vertex};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return {a + ab * (d1 / (d1 - d3)), Feature::edge};
  const Vec3d cp = p - c;
  const double d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0 && d5 <= d6) return {c, Feature::vertex};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return {a + ac * (d2 / (d2 - d6)), Feature::edge};
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    return {b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), Feature::edge};
  }
  // Inside the face: project onto the plane. (Ericson rebuilds the point from barycentric
  // weights, which loses precision on long slivers; the projection along the normal is exact
  // to rounding and makes the closest direction exactly the normal.)
  return {p - normal * dot(normal, p - a), Feature::face};
}

}  // namespace

ClosestOnTriangle closest_point_triangle(const Vec3d& p, const Vec3d v[3], const TriangleShape& shape) {
  switch (shape.kind) {
    case TriangleShape::proper: return closest_point_proper_triangle(p, v[0], v[1], v[2], shape.normal);
    case TriangleShape::segment: {
      const ClosestOnSegment c = closest_point_segment(p, v[shape.seg_from], v[shape.seg_to]);
      return {c.point, segment_feature(c.s)};
    }
    case TriangleShape::point: break;
  }
  return {v[0], Feature::vertex};
}

ClosestSegmentTriangle closest_segment_triangle(const Vec3d& p0, const Vec3d& p1, const Vec3d v[3],
                                                const TriangleShape& shape) {
  ClosestSegmentTriangle best;
  best.distance = INFINITY;
  auto consider = [&](const Vec3d& on_seg, const Vec3d& on_tri, Feature f) {
    const double dist = length(on_seg - on_tri);
    if (dist < best.distance) best = {on_seg, on_tri, dist, f};
  };

  if (shape.kind != TriangleShape::proper) {
    const Vec3d q0 = v[shape.seg_from], q1 = shape.kind == TriangleShape::segment ? v[shape.seg_to] : v[0];
    const ClosestSegmentSegment c = closest_segment_segment(p0, p1, q0, q1);
    consider(c.on_first, c.on_second, shape.kind == TriangleShape::point ? Feature::vertex : segment_feature(c.t));
    return best;
  }

  // The segment pierces the triangle: distance 0 at the crossing point.
  const Vec3d& n = shape.normal;
  const double da = dot(n, p0 - v[0]), db = dot(n, p1 - v[0]);
  if ((da <= 0 && db >= 0) || (da >= 0 && db <= 0)) {
    if (da != db) {
      const Vec3d x = p0 + (p1 - p0) * (da / (da - db));
      if (dot(n, cross(v[1] - v[0], x - v[0])) >= 0 && dot(n, cross(v[2] - v[1], x - v[1])) >= 0 &&
          dot(n, cross(v[0] - v[2], x - v[2])) >= 0) {
        return {x, x, 0.0, Feature::face};
      }
    }
  }
  // Otherwise a closest pair has an endpoint of the segment or a point on a triangle edge.
  for (const Vec3d& p : {p0, p1}) {
    const ClosestOnTriangle c = closest_point_proper_triangle(p, v[0], v[1], v[2], n);
    consider(p, c.point, c.feature);
  }
  for (int i = 0; i < 3; ++i) {
    const ClosestSegmentSegment c = closest_segment_segment(p0, p1, v[i], v[(i + 1) % 3]);
    consider(c.on_first, c.on_second, segment_feature(c.t));
  }
  return best;
}

}  // namespace capsweep
