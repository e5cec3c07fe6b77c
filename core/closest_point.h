// Closest points between points, segments and triangles, in double precision.
// Reference: Ericson, Real-Time Collision Detection, 5.1.2 (point-segment), 5.1.5
// (point-triangle), 5.1.9 (segment-segment). Triangles may be degenerate.
#pragma once

#include <capsweep/values.h>

namespace capsweep {

// How a triangle behaves geometrically. Kernels treat a triangle whose largest angle is within
// ~1e-7 rad of 180 degrees (or with coinciding vertices) as the segment it collapses to: the
// part of the triangle this drops lies within 1e-7 x its shorter edges of that segment.
struct TriangleShape {
  enum Kind { proper, segment, point } kind = proper;
  Vec3d normal;      // unit, by the winding v0 -> v1 -> v2; only for `proper`
  int seg_from = 0;  // for `segment`: the longest edge, from vertex seg_from to seg_to
  int seg_to = 1;
};
TriangleShape classify_triangle(const Vec3d v[3]);

// Unit normal of the plane through vectors u and w, or {0,0,0} when they are (nearly) parallel
// (|u x w| <= 1e-7 |u| |w|) or one of them is zero.
Vec3d plane_normal(const Vec3d& u, const Vec3d& w);

struct ClosestOnSegment {
  Vec3d point;
  double s;  // parameter along the segment, in [0, 1]
};
ClosestOnSegment closest_point_segment(const Vec3d& p, const Vec3d& a, const Vec3d& b);

struct ClosestSegmentSegment {
  Vec3d on_first, on_second;
  double s, t;  // parameters along the first and second segment
};
ClosestSegmentSegment closest_segment_segment(const Vec3d& p0, const Vec3d& p1, const Vec3d& q0,
                                              const Vec3d& q1);

struct ClosestOnTriangle {
  Vec3d point;
  Feature feature;  // face interior, an edge, or a vertex
};
ClosestOnTriangle closest_point_triangle(const Vec3d& p, const Vec3d v[3], const TriangleShape& shape);

struct ClosestSegmentTriangle {
  Vec3d on_segment, on_triangle;
  double distance;
  Feature feature;  // where on the triangle the closest point lies
};
ClosestSegmentTriangle closest_segment_triangle(const Vec3d& p0, const Vec3d& p1, const Vec3d v[3],
                                                const TriangleShape& shape);

}  // namespace capsweep
