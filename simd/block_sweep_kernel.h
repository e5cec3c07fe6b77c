// The block kernels, written once for any lane type T: plain double or float (the scalar twins)
// or an xsimd batch (the wide versions): doubles for the full kernel, floats for the rejection
// stage over compact blocks. Every lane runs the same branch-free arithmetic; a per-lane
// decision is a mask and a select, never a branch, so a batch lane and its twin compute
// bit-identical values (builds use -ffp-contract=off: no fused multiply-adds).
//
// Included only by the per-ISA translation units and the twin, never by public headers. All of
// it has internal linkage, so each unit keeps the copy compiled for its own ISA.
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include "simd/block_sweep.h"

namespace capsweep::kernel {
namespace {

// Every helper is inlined into the kernel: a call would pass batches through memory.
#define CAPSWEEP_INLINE inline __attribute__((always_inline))

// Lane helpers for the plain float/double twins. Batches use xsimd's own select, any, min, max,
// sqrt and abs (found by argument-dependent lookup); min and max agree with them on every input
// (minpd/minps return the second operand unless the first is less).
inline double select(bool c, double a, double b) { return c ? a : b; }
inline float select(bool c, float a, float b) { return c ? a : b; }
inline bool any(bool c) { return c; }
inline double sqrt(double x) { return std::sqrt(x); }
inline float sqrt(float x) { return std::sqrt(x); }
inline double min(double a, double b) { return a < b ? a : b; }
inline float min(float a, float b) { return a < b ? a : b; }
inline double max(double a, double b) { return a > b ? a : b; }
inline float max(float a, float b) { return a > b ? a : b; }
inline float abs(float x) { return std::fabs(x); }

template <class T> struct scalar_of { using type = T; };
template <class U, class A> struct scalar_of<xsimd::batch<U, A>> { using type = U; };

template <class T> using Mask = decltype(T(0.0) < T(0.0));

template <class T>
struct V3 {
  T x, y, z;
};
template <class T> V3<T> splat(const Vec3d& v) { return {T(v.x), T(v.y), T(v.z)}; }
template <class T> V3<T> operator+(const V3<T>& a, const V3<T>& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
template <class T> V3<T> operator-(const V3<T>& a, const V3<T>& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
template <class T> V3<T> operator-(const V3<T>& a) { return {-a.x, -a.y, -a.z}; }
template <class T> V3<T> operator*(const V3<T>& a, const T& s) { return {a.x * s, a.y * s, a.z * s}; }
template <class T> V3<T> operator/(const V3<T>& a, const T& s) { return {a.x / s, a.y / s, a.z / s}; }
template <class T> T dot(const V3<T>& a, const V3<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> V3<T> cross(const V3<T>& a, const V3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> V3<T> select(const Mask<T>& c, const V3<T>& a, const V3<T>& b) {
  return {select(c, a.x, b.x), select(c, a.y, b.y), select(c, a.z, b.z)};
}
template <class T> T clamp01(const T& x) { return min(max(x, T(0.0)), T(1.0)); }

inline constexpr double kInf = std::numeric_limits<double>::infinity();
// The scalar core's threshold for "parallel" (closest_point.cpp, plane_normal).
inline constexpr double kParallelSine = 1e-7;

// The lanes' triangles, relative to the query origin.
template <class T>
struct Lanes {
  V3<T> v[3];
  // A kernel block's unit normal, or 0 for a triangle that collapses to a segment or point.
  // Unset for a compact block's lanes: the float stage crosses two edges instead
  // (compact_live_mask).
  V3<T> n;
};

// A query as the lanes see it: one query the same in every lane, or a query of its own in each
// lane (the pooled kernel). Every value is the one the scalar core computes, in the same order.
template <class T>
struct QueryLanes {
  V3<T> origin, e, d, d_live;
  T r, ee;  // ee = |e|^2
  T reach_min[3], reach_max[3];
};

template <class T>
QueryLanes<T> splat_query(const BlockQuery& q) {
  QueryLanes<T> l;
  l.origin = splat<T>(q.origin);
  l.e = splat<T>(q.e);
  l.d = splat<T>(q.d);
  l.d_live = splat<T>(q.d_live);
  l.r = T(q.r);
  l.ee = T(q.e.x * q.e.x + q.e.y * q.e.y + q.e.z * q.e.z);
  const double rmin[3] = {q.reach_min.x, q.reach_min.y, q.reach_min.z};
  const double rmax[3] = {q.reach_max.x, q.reach_max.y, q.reach_max.z};
  for (int k = 0; k < 3; ++k) {
    l.reach_min[k] = T(rmin[k]);
    l.reach_max[k] = T(rmax[k]);
  }
  return l;
}

// The earliest entry found so far, per lane.
template <class T>
struct Entry {
  T t = T(kInf);
  T part = T(0.0);
};

template <class T>
CAPSWEEP_INLINE void take(Entry<T>& best, const Mask<T>& valid, const T& t, double part) {
  const Mask<T> better = valid && (t < best.t);
  best.t = select(better, t, best.t);
  best.part = select(better, T(part), best.part);
}

// Cyrus-Beck clipping of x(t) = t d against a slab's half-spaces g.x <= h, tracking whether the
// latest entry is through one of the two offset faces.
template <class T>
struct Clip {
  T t_in = T(-kInf), t_out = T(kInf);
  Mask<T> never = Mask<T>(false);
  Mask<T> via_face = Mask<T>(false);

  void add(const V3<T>& g, const T& h, const V3<T>& d, bool face) {
    const T gd = dot(g, d);
    never = never || ((gd == T(0.0)) && (h < T(0.0)));
    const T tt = h / gd;
    const Mask<T> enters = (gd < T(0.0)) && (tt > t_in);
    t_in = select(enters, tt, t_in);
    if (face) {
      via_face = via_face || enters;
    } else {
      via_face = via_face && !enters;
    }
    const Mask<T> leaves = (gd > T(0.0)) && (tt < t_out);
    t_out = select(leaves, tt, t_out);
  }
  Mask<T> entered() const {
    return via_face && !never && (t_in <= t_out) && (t_in >= T(0.0)) && (t_in <= T(1.0));
  }
};

// Entry through an offset face of the slab around polygon `poly` (3 or 4 corners) with unit
// normal n, thickness r each side. Side planes point away from the polygon's centroid.
template <class T>
CAPSWEEP_INLINE void enter_slab(const V3<T>* poly, int count, const V3<T>& n, const Mask<T>& usable, const T& r, const V3<T>& d,
                double part, Entry<T>& best) {
  V3<T> centroid = poly[0];
  for (int k = 1; k < count; ++k) centroid = centroid + poly[k];
  centroid = centroid / T(double(count));
  Clip<T> clip;
  const T c = dot(n, poly[0]);
  clip.add(n, c + r, d, true);
  clip.add(-n, r - c, d, true);
  for (int k = 0; k < count; ++k) {
    const V3<T>& p = poly[k];
    V3<T> m = cross(poly[(k + 1) % count] - p, n);
    m = select(dot(m, centroid - p) > T(0.0), -m, m);
    clip.add(m, dot(m, p), d, false);
  }
  take(best, usable && clip.entered(), clip.t_in, part);
}

// Entry through the side of the radius-r cylinder around [p, q] (see core/sweep.cpp). Only t and
// the part are kept: lane_hit computes the normal of the winning lane alone, as the core does.
template <class T>
CAPSWEEP_INLINE void enter_cylinder(const V3<T>& p, const V3<T>& q, const T& r, const V3<T>& d, double part, Entry<T>& best) {
  const V3<T> u = q - p;
  const T uu = dot(u, u);
  const V3<T> w = -p;
  const V3<T> ud = cross(u, d), uw = cross(u, w);
  const T a = dot(ud, ud), b = T(2.0) * dot(ud, uw), c = dot(uw, uw) - r * r * uu;
  const T disc = b * b - T(4.0) * a * c;
  const T tt = c / ((-b + sqrt(disc)) * T(0.5));
  const V3<T> x = d * tt;
  const T s = dot(x - p, u) / uu;
  const V3<T> radial = x - (p + u * s);
  const Mask<T> ok = (uu > T(0.0)) && (c > T(0.0)) && (b < T(0.0)) && (disc >= T(0.0)) && (tt <= T(1.0)) &&
                     (s >= T(0.0)) && (s <= T(1.0)) && (dot(radial, radial) > T(0.0));
  take(best, ok, tt, part);
}

template <class T>
CAPSWEEP_INLINE void enter_sphere(const V3<T>& center, const T& r, const V3<T>& d, double part, Entry<T>& best) {
  const V3<T> w = -center;
  const T a = dot(d, d), b = T(2.0) * dot(d, w), c = dot(w, w) - r * r;
  const T disc = b * b - T(4.0) * a * c;
  const T tt = c / ((-b + sqrt(disc)) * T(0.5));
  const Mask<T> ok = (c > T(0.0)) && (b < T(0.0)) && (disc >= T(0.0)) && (tt <= T(1.0));
  take(best, ok, tt, part);
}

// Squared distance between segments [0, e] and [p, p + u] (Ericson 5.1.9, with every branch
// turned into a select). a = |e|^2; no_axis (a <= 0) is the same for all lanes.
template <class T>
CAPSWEEP_INLINE T segment_segment_dist2(const V3<T>& e, const T& a, bool no_axis, const V3<T>& p, const V3<T>& u) {
  const V3<T> rr = -p;
  const T E = dot(u, u), f = dot(u, rr);
  T s, t;
  if (no_axis) {
    s = T(0.0);
    t = select(E > T(0.0), clamp01(f / E), T(0.0));
  } else {
    const T c = dot(e, rr), b = dot(e, u);
    const T denom = a * E - b * b;
    s = select(denom > T(0.0), clamp01((b * f - c * E) / denom), T(0.0));
    t = select(E > T(0.0), (b * s + f) / E, T(0.0));
    s = select(t < T(0.0), clamp01(-c / a), select(t > T(1.0), clamp01((b - c) / a), s));
    s = select(E > T(0.0), s, clamp01(-c / a));
    t = clamp01(t);
  }
  const V3<T> diff = e * s - (p + u * t);
  return dot(diff, diff);
}

// Whether x (on the triangle's plane) lies inside the triangle (proper lanes).
template <class T>
CAPSWEEP_INLINE Mask<T> inside_triangle(const Lanes<T>& tri, const V3<T>& x) {
  const V3<T>* v = tri.v;
  return (dot(cross(v[1] - v[0], x - v[0]), tri.n) >= T(0.0)) && (dot(cross(v[2] - v[1], x - v[1]), tri.n) >= T(0.0)) &&
         (dot(cross(v[0] - v[2], x - v[2]), tri.n) >= T(0.0));
}

// Squared distance between the capsule axis [0, e] and each lane's triangle.
template <class T>
CAPSWEEP_INLINE T axis_triangle_dist2(const Lanes<T>& tri, const V3<T>& e, const T& ee, bool no_axis) {
  const V3<T>* v = tri.v;
  T best = segment_segment_dist2(e, ee, no_axis, v[0], v[1] - v[0]);
  best = min(best, segment_segment_dist2(e, ee, no_axis, v[1], v[2] - v[1]));
  best = min(best, segment_segment_dist2(e, ee, no_axis, v[2], v[0] - v[2]));
  const Mask<T> proper = dot(tri.n, tri.n) > T(0.0);
  // Either endpoint over the face: its plane distance.
  const T s0 = -dot(tri.n, v[0]);
  const T se = dot(tri.n, e - v[0]);
  best = select(proper && inside_triangle(tri, tri.n * s0), min(best, s0 * s0), best);
  best = select(proper && inside_triangle(tri, e - tri.n * se), min(best, se * se), best);
  // The axis crossing the face.
  const Mask<T> crosses = proper && (s0 != se) && (((s0 <= T(0.0)) && (se >= T(0.0))) || ((s0 >= T(0.0)) && (se <= T(0.0))));
  const V3<T> x = e * (s0 / (s0 - se));
  best = select(crosses && inside_triangle(tri, x), T(0.0), best);
  return best;
}

// Loading and storing lanes: one number, or a batch from the aligned block arrays.
template <class U> U load_lanes_from(const U* p, U*) { return *p; }
template <class U, class A>
xsimd::batch<U, A> load_lanes_from(const U* p, xsimd::batch<U, A>*) {
  return xsimd::batch<U, A>::load_aligned(p);
}
template <class U> void store_lanes_to(U x, U* p) { *p = x; }
template <class U, class A> void store_lanes_to(const xsimd::batch<U, A>& x, U* p) { x.store_aligned(p); }
template <class T> constexpr int lane_count() {
  if constexpr (std::is_arithmetic_v<T>) return 1; else return int(T::size);
}

// Float stage: whether the triangle and the swept axis (the parallelogram 0, e, d, e + d)
// project on axis c more than reach x |c| apart, the swept axis beyond the triangle's far side
// (or, with both_sides, either side). All three corners are projected, so any direction is a
// separating axis (Ericson 5.2.1). An axis too short for float (|c|^2 or the width near
// underflow) separates nothing: its rounding would not be bounded by the margin in `reach`.
template <class T, bool both_sides>
CAPSWEEP_INLINE Mask<T> apart_along(const V3<T>* v, const V3<T>& e, const V3<T>& d, const V3<T>& c, const T& reach) {
  const T p0 = dot(c, v[0]), p1 = dot(c, v[1]), p2 = dot(c, v[2]);
  const T pe = dot(c, e), pd = dot(c, d), ped = pe + pd;
  const T tri_max = max(max(p0, p1), p2);
  const T swept_min = min(min(T(0.0f), pe), min(pd, ped));
  const T cc = dot(c, c);
  const T width = reach * sqrt(cc);
  const Mask<T> usable = (cc > T(1e-30f)) && (width > T(1e-30f));
  if constexpr (both_sides) {
    const T tri_min = min(min(p0, p1), p2);
    const T swept_max = max(max(T(0.0f), pe), max(pd, ped));
    return usable && ((swept_min - tri_max > width) || (tri_min - swept_max > width));
  } else {
    return usable && (swept_min - tri_max > width);
  }
}

// Separating axes the cheap tests leave out, for the float stage: the normal of the
// parallelogram the axis sweeps (e x d) and each triangle edge crossed with e and with d (the
// separating axis theorem for two convex polytopes, Ericson, Real-Time Collision Detection
// 5.2.1). A gap wider than reach x |c| between the two projections onto any axis c is a distance
// greater than the reach. About half the lanes the cheap tests keep are not touched; these axes
// drop many of them before they reach the double kernel.
//
// The margin in `reach` covers float rounding only while nothing underflows: an axis is used
// only when |c|^2 and the width are far above the smallest normal float (so a host that flushes
// denormals to zero changes nothing either); a nearly parallel pair gives no axis.
template <class T>
CAPSWEEP_INLINE Mask<T> separated_by_sweep_axes(const Lanes<T>& tri, const V3<T>& e, const V3<T>& d, const T& reach) {
  const V3<T>* v = tri.v;
  auto gap = [&](const V3<T>& c) { return apart_along<T, true>(v, e, d, c, reach); };
  Mask<T> out = gap(cross(e, d));
  for (int k = 0; k < 3; ++k) {
    const V3<T> edge = v[(k + 1) % 3] - v[k];
    out = out || gap(cross(edge, e)) || gap(cross(edge, d));
  }
  return out;
}

// Lanes that may be touched before the query's limit: the triangle's box meets the swept reach,
// and the swept axis (the parallelogram 0, e, d, e + d, with d = d_live) comes within r of the
// triangle's plane and of each edge's side plane. Every test is a separating plane, so a
// rejected lane is never touched before the limit; in double (the full kernel, with the exact
// normal) the tests are as exact as the kernel itself. The float stage over compact blocks is
// compact_live_mask.
template <class T>
CAPSWEEP_INLINE Mask<T> live_mask(const Lanes<T>& tri, const QueryLanes<T>& q) {
  const V3<T>* v = tri.v;
  const V3<T>& e = q.e;
  const V3<T>& d = q.d_live;
  const T& r = q.r;
  Mask<T> out(false);
  for (int k = 0; k < 3; ++k) {
    const T a0 = k == 0 ? v[0].x : (k == 1 ? v[0].y : v[0].z);
    const T a1 = k == 0 ? v[1].x : (k == 1 ? v[1].y : v[1].z);
    const T a2 = k == 0 ? v[2].x : (k == 1 ? v[2].y : v[2].z);
    out = out || (min(min(a0, a1), a2) > q.reach_max[k]) || (max(max(a0, a1), a2) < q.reach_min[k]);
  }
  const T s0 = -dot(tri.n, v[0]);
  const T se = s0 + dot(tri.n, e), sd = s0 + dot(tri.n, d), sed = s0 + dot(tri.n, e + d);
  out = out || (min(min(s0, se), min(sd, sed)) > r) || (max(max(s0, se), max(sd, sed)) < -r);
  // Each edge's outward side plane (in the triangle's plane, perpendicular to the edge). For a
  // lane that collapses to a segment or point, m = 0 and nothing is rejected.
  const T reach = r * T(1 + 1e-9);
  for (int k = 0; k < 3; ++k) {
    const V3<T> edge = v[(k + 1) % 3] - v[k];
    const V3<T> m = cross(edge, tri.n);
    const T h0 = -dot(m, v[k]);
    const T he = h0 + dot(m, e), hd = h0 + dot(m, d), hed = h0 + dot(m, e + d);
    out = out || (min(min(h0, he), min(hd, hed)) > reach * sqrt(dot(m, m)));
  }
  return !out;
}

// The float stage's tests after the box (live_lanes tests the boxes first, in world
// coordinates; `outside` is its answer): the plane and each edge's side, as live_mask, but
// compact blocks store no normal. The plane's direction is the cross product of two edges, only
// nearly the normal for a sliver: each test therefore projects all three corners, which makes
// it a separating axis test valid for any direction (Ericson, Real-Time Collision Detection
// 5.2.1), widened by a margin far above float rounding: 4e-6 x the magnitudes involved, times
// the axis' length. Returns as soon as no lane is left (the mask is the same either way).
// `scale` is the query's (BlockQuery::scale).
template <class T>
CAPSWEEP_INLINE Mask<T> compact_live_mask(const Lanes<T>& tri, const QueryLanes<T>& q, double scale, bool sweep_axes,
                                          Mask<T> out) {
  const V3<T>* v = tri.v;
  const V3<T>& e = q.e;
  const V3<T>& d = q.d_live;
  T size = max(max(abs(v[0].x), abs(v[0].y)), abs(v[0].z));
  for (int k = 1; k < 3; ++k) size = max(size, max(max(abs(v[k].x), abs(v[k].y)), abs(v[k].z)));
  const T margin = T(4e-6f) * (size + T(float(scale)));
  const T reach = (q.r + margin) * T(1 + 1e-9);
  // The plane's direction: two edges crossed (0 for a lane that collapses to a segment or a
  // point: nothing is rejected).
  const V3<T> e01 = v[1] - v[0];
  const V3<T> n = cross(e01, v[2] - v[0]);
  out = out || apart_along<T, true>(v, e, d, n, reach);
  if (!any(!out)) return !out;
  // Each edge's outward side: the edge crossed with n.
  out = out || apart_along<T, false>(v, e, d, cross(e01, n), reach) ||
        apart_along<T, false>(v, e, d, cross(v[2] - v[1], n), reach) ||
        apart_along<T, false>(v, e, d, cross(v[0] - v[2], n), reach);
  if (sweep_axes && any(!out)) out = out || separated_by_sweep_axes(tri, e, d, reach);
  return !out;
}

// The kernel for one set of lanes. Returns per lane: entry (t, part), and whether the
// start may be within reach (then the scalar core answers that lane). has_axis (e != 0) is the
// same for every lane.
template <class T>
CAPSWEEP_INLINE void sweep_lanes(const Lanes<T>& tri, const QueryLanes<T>& q, bool has_axis, Entry<T>& best,
                                 Mask<T>& near_start) {
  const V3<T>* v = tri.v;
  const V3<T>& e = q.e;
  const V3<T>& d = q.d;
  const T& r = q.r;

  // 1. Cheap exact rejections (see live_mask).
  const T s0 = -dot(tri.n, v[0]);
  const T se = s0 + dot(tri.n, e);
  const Mask<T> live = live_mask(tri, q);
  near_start = Mask<T>(false);
  best = Entry<T>{};
  if (!any(live)) return;

  // 2. A start within reach (with a margin far above rounding) goes to the scalar core. The
  //    exact distance is needed only where the start axis is within reach of the plane (always
  //    so for a lane that collapses to a segment or point: its normal is 0).
  const T& ee = q.ee;
  const T reach = r * T(1 + 1e-9) + T(1e-12);
  const Mask<T> start_near_plane = live && !((min(s0, se) > reach) || (max(s0, se) < -reach));
  if (any(start_near_plane)) {
    near_start = start_near_plane && (axis_triangle_dist2(tri, e, ee, !has_axis) <= reach * reach);
  }
  const Mask<T> sweep = live && !near_start;
  if (!any(sweep)) return;

  // 3. The earliest entry into the 20 parts of the rounded prism, in the scalar core's order.
  const Mask<T> proper = dot(tri.n, tri.n) > T(0.0);
  enter_slab(v, 3, tri.n, proper, r, d, 0, best);
  if (has_axis) {
    const V3<T> at_b[3] = {v[0] - e, v[1] - e, v[2] - e};
    enter_slab(at_b, 3, tri.n, proper, r, d, 1, best);
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      const V3<T> u = v[j] - v[i];
      const V3<T> cr = cross(u, e);
      const T nn = dot(cr, cr);
      const Mask<T> usable = nn > T(kParallelSine * kParallelSine) * dot(u, u) * ee;
      const V3<T> pn = cr / sqrt(nn);
      const V3<T> quad[4] = {v[i], v[j], v[j] - e, v[i] - e};
      enter_slab(quad, 4, pn, usable, r, d, 2 + i, best);
    }
  }
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    enter_cylinder(v[i], v[j], r, d, 5 + 2 * i, best);
    if (has_axis) enter_cylinder(v[i] - e, v[j] - e, r, d, 6 + 2 * i, best);
  }
  if (has_axis) {
    for (int i = 0; i < 3; ++i) enter_cylinder(v[i], v[i] - e, r, d, 11 + i, best);
  }
  for (int i = 0; i < 3; ++i) {
    enter_sphere(v[i], r, d, 14 + 2 * i, best);
    if (has_axis) enter_sphere(v[i] - e, r, d, 15 + 2 * i, best);
  }
  best.t = select(sweep, best.t, T(kInf));
}

// Lanes [first, first + lane_count) of a kernel block, relative to the query origin.
template <class T>
CAPSWEEP_INLINE Lanes<T> load_lanes(const KernelBlock& b, int first, const V3<T>& origin) {
  auto load = [first](const auto* array) { return load_lanes_from(array + first, static_cast<T*>(nullptr)); };
  const T &ox = origin.x, &oy = origin.y, &oz = origin.z;
  Lanes<T> l;
  l.v[0] = {load(b.x0) - ox, load(b.y0) - oy, load(b.z0) - oz};
  l.v[1] = {load(b.x1) - ox, load(b.y1) - oy, load(b.z1) - oz};
  l.v[2] = {load(b.x2) - ox, load(b.y2) - oy, load(b.z2) - oz};
  l.n = {load(b.nx), load(b.ny), load(b.nz)};
  return l;
}

// Lanes [first, first + lane_count) of a pooled block's queries.
template <class T>
CAPSWEEP_INLINE QueryLanes<T> load_queries(const LaneQueries& q, int first) {
  auto load = [first](const double* array) { return load_lanes_from(array + first, static_cast<T*>(nullptr)); };
  QueryLanes<T> l;
  l.origin = {load(q.ox), load(q.oy), load(q.oz)};
  l.e = {load(q.ex), load(q.ey), load(q.ez)};
  l.d = {load(q.dx), load(q.dy), load(q.dz)};
  l.d_live = {load(q.live_x), load(q.live_y), load(q.live_z)};
  l.r = load(q.r);
  l.ee = l.e.x * l.e.x + l.e.y * l.e.y + l.e.z * l.e.z;  // the same operations as splat_query's, per lane
  const double* rmin[3] = {q.reach_min_x, q.reach_min_y, q.reach_min_z};
  const double* rmax[3] = {q.reach_max_x, q.reach_max_y, q.reach_max_z};
  for (int k = 0; k < 3; ++k) {
    l.reach_min[k] = load(rmin[k]);
    l.reach_max[k] = load(rmax[k]);
  }
  return l;
}

// The block kernel for lane type T: one query in every lane (`shared`), or a query of its own
// per lane (`pooled`, every query with an axis). The arithmetic per lane is the same either way.
template <class T, class Queries>
bool sweep_block_any(const KernelBlock& block, const Queries& queries, BlockHits& hits) {
  constexpr int width = lane_count<T>();
  static_assert(kBlockLanes % width == 0);
  constexpr bool pooled = std::is_same_v<Queries, LaneQueries>;
  QueryLanes<T> shared;
  bool has_axis = true;  // a pooled block holds only queries with an axis
  if constexpr (!pooled) {
    shared = splat_query<T>(queries);
    has_axis = capsweep::has_axis(queries);
  }
  bool reported = false;
  for (int first = 0; first < kBlockLanes; first += width) {
    // Lanes of a group that are all unused (a block closed after a few live lanes, as a walking
    // step's usually is) are not swept: their answer is known. Each lane's arithmetic is its
    // own, so skipping a group changes no bit of the others.
    bool used = false;
    for (int k = 0; k < width; ++k) used = used || block.valid(first + k);
    if (!used) {
      for (int k = 0; k < width; ++k) {
        hits.t[first + k] = kInf;
        hits.part[first + k] = 0;
        hits.near_start[first + k] = false;
      }
      continue;
    }
    Entry<T> best;
    Mask<T> near_start;
    if constexpr (pooled) {
      const QueryLanes<T> q = load_queries<T>(queries, first);
      sweep_lanes(load_lanes<T>(block, first, q.origin), q, has_axis, best, near_start);
    } else {
      sweep_lanes(load_lanes<T>(block, first, shared.origin), shared, has_axis, best, near_start);
    }
    alignas(64) double part[width], near[width];
    store_lanes_to(best.t, hits.t + first);
    store_lanes_to(best.part, part);
    store_lanes_to(select(near_start, T(1.0), T(0.0)), near);
    for (int k = 0; k < width; ++k) {
      const int lane = first + k;
      hits.part[lane] = std::uint8_t(part[k]);
      hits.near_start[lane] = near[k] != 0.0 && block.valid(lane);
      if (!block.valid(lane)) hits.t[lane] = kInf;
      reported = reported || hits.near_start[lane] || hits.t[lane] <= 1.0;
    }
  }
  return reported;
}

template <class T>
bool sweep_block(const KernelBlock& block, const BlockQuery& q, BlockHits& hits) {
  return sweep_block_any<T>(block, q, hits);
}

template <class T>
bool sweep_pooled(const KernelBlock& block, const LaneQueries& q, BlockHits& hits) {
  return sweep_block_any<T>(block, q, hits);
}

// Bit i set: lane i of the compact block is used and live (T: float lanes). The boxes first, in
// world coordinates against the reach in float (BlockQuery::box_min, box_max): the
// triangles' side has no rounding, and most lanes of a walk's blocks end there, before the query
// is splatted or a vertex moved into its frame.
template <class T>
std::uint32_t live_lanes(const TriangleBlock& block, const BlockQuery& q) {
  constexpr int width = lane_count<T>();
  QueryLanes<T> lanes;
  bool splatted = false;
  std::uint32_t bits = 0;
  for (int first = 0; first < kBlockLanes; first += width) {
    auto load = [first](const float* array) { return load_lanes_from(array + first, static_cast<T*>(nullptr)); };
    const V3<T> p[3] = {{load(block.x0), load(block.y0), load(block.z0)},
                        {load(block.x1), load(block.y1), load(block.z1)},
                        {load(block.x2), load(block.y2), load(block.z2)}};
    Mask<T> outside(false);
    for (int k = 0; k < 3; ++k) {
      const T a0 = k == 0 ? p[0].x : (k == 1 ? p[0].y : p[0].z);
      const T a1 = k == 0 ? p[1].x : (k == 1 ? p[1].y : p[1].z);
      const T a2 = k == 0 ? p[2].x : (k == 1 ? p[2].y : p[2].z);
      outside = outside || (min(min(a0, a1), a2) > T(q.box_max[k])) || (max(max(a0, a1), a2) < T(q.box_min[k]));
    }
    if (!any(!outside)) continue;
    if (!splatted) lanes = splat_query<T>(q), splatted = true;
    Lanes<T> tri;
    for (int i = 0; i < 3; ++i) tri.v[i] = p[i] - lanes.origin;  // as load_lanes moves them
    alignas(64) float live[width];
    store_lanes_to(select(compact_live_mask(tri, lanes, q.scale, q.sweep_axes, outside), T(1.0f), T(0.0f)), live);
    for (int k = 0; k < width; ++k) {
      if (live[k] != 0.0f && block.valid(first + k)) bits |= 1u << (first + k);
    }
  }
  return bits;
}

// classify_triangle's normal (core/closest_point.cpp), lane by lane and bit for bit: the edge
// lengths, the apex opposite the longest edge (the first of equal ones, as std::max_element
// picks it), the normalised cross product of the apex's edges, or 0 where they are (nearly)
// parallel (plane_normal), turned to the triangle's own winding.
template <class T>
CAPSWEEP_INLINE V3<T> exact_normal(const V3<T> v[3]) {
  const V3<T> e01 = v[1] - v[0], e12 = v[2] - v[1], e20 = v[0] - v[2];
  const T len0 = dot(e01, e01), len1 = dot(e12, e12), len2 = dot(e20, e20);
  const Mask<T> past0 = len0 < len1;
  const Mask<T> past1 = select(past0, len1, len0) < len2;  // longest: 2 if past1, else 1 if past0, else 0
  // Longest edge 0 (v0 v1): apex v2; edge 1: apex v0; edge 2: apex v1.
  const V3<T> u = select(past1, v[2] - v[1], select(past0, v[1] - v[0], v[0] - v[2]));
  const V3<T> w = select(past1, v[0] - v[1], select(past0, v[2] - v[0], v[1] - v[2]));
  const V3<T> n = cross(u, w);
  const T nn = dot(n, n);
  const Mask<T> proper = nn > T(kParallelSine * kParallelSine) * dot(u, u) * dot(w, w);
  V3<T> unit = n / sqrt(nn);
  unit = select(dot(unit, cross(v[1] - v[0], v[2] - v[0])) < T(0.0), -unit, unit);
  return select(proper, unit, V3<T>{T(0.0), T(0.0), T(0.0)});
}

// The exact normals of every lane of a kernel block from its (double) vertices: the full
// kernel's, computed when it is about to run instead of stored in the BVH's blocks.
template <class T>
void complete_normals(KernelBlock& b) {
  constexpr int width = lane_count<T>();
  static_assert(kBlockLanes % width == 0);
  for (int first = 0; first < kBlockLanes; first += width) {
    auto load = [first](const double* array) { return load_lanes_from(array + first, static_cast<T*>(nullptr)); };
    const V3<T> p[3] = {{load(b.x0), load(b.y0), load(b.z0)}, {load(b.x1), load(b.y1), load(b.z1)},
                        {load(b.x2), load(b.y2), load(b.z2)}};
    const V3<T> e = exact_normal(p);
    store_lanes_to(e.x, b.nx + first);
    store_lanes_to(e.y, b.ny + first);
    store_lanes_to(e.z, b.nz + first);
  }
}

// The variant of the translation unit's ISA (block_sweep_<isa>.cpp): the full kernel over double
// batches D, the rejection stage over float batches F.
template <class D, class F>
BlockSweepVariant make_variant(const char* isa) {
  return {isa, sweep_block<D>, live_lanes<F>, sweep_pooled<D>, complete_normals<D>, lane_count<D>()};
}

#undef CAPSWEEP_INLINE

}  // namespace
}  // namespace capsweep::kernel
