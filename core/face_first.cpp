#include "core/face_first.h"

#include <algorithm>
#include <cmath>

#include <capsweep/sweep.h>
#include "core/closest_point.h"
#include "core/sweep_frame.h"

namespace capsweep::detail {

// Why the answers agree with the exact kernel (core/sweep.cpp), in exact arithmetic first. Take
// the plane's normal n on the capsule's side and the heights of the axis ends above the plane.
// Any point's distance to the triangle is at least its height, so while every height exceeds r
// nothing is touched: with both ends more than r above the plane and the motion losing height
// `approach` over [0, 1], the plane is reached at t_f = (lowest height - r) / approach, and not
// within [0, 1] when approach < lowest height - r: a miss. Otherwise, if every point of the
// swept axis up to t_f (the parallelogram 0, e, d t_f, e + d t_f) projects onto the plane at
// least delta inside each edge's side (only the part of the axis within delta of the lowest
// height need be: the rest stays more than r above the plane until delta / approach after t_f),
// each point's nearest triangle point is its projection and its distance to any edge is at least
// sqrt(height^2 + delta^2): the face is met first, at t_f, and every part of the rounded prism
// around an edge or a vertex only once some height has
// fallen to sqrt(r^2 - delta^2 / 4) (the path leaves the inset by at most delta / 2 meanwhile),
// at least delta^2 / (8 r approach) later. The margins make each decision hold in floating point
// too: heights within 1e-6 of the magnitudes of the reach, a normal that rounds badly (a thin
// triangle), a contact time that is not clear of t = 1 or not 1e-6 ahead of every other part's
// give `unknown`. That margin is a thousand times the one the kernel's own skipping of parts
// relies on (1e-9), and tests/core/face_first_test.cpp holds both on adversarial cases.
namespace {

// The decision, on the kernel's own classified normal (which has the triangle's winding).
FaceFirst decide(const Frame& f) {
  FaceFirst out;
  if (!(f.r > 0) || f.shape.kind != TriangleShape::proper) return out;  // rays and segments: thin capsules of their own
  const Vec3d* v = f.v;
  const Vec3d edge[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
  // Twice the area at least 1e-4 of the longest edge squared (Lagrange's identity: |a x b|^2 =
  // |a|^2 |b|^2 - (a.b)^2, whose cancellation stays far below that threshold): the normal is then
  // good to 1e-11, so every corner lies that close to its plane.
  const double l0 = length_sq(edge[0]), l2 = length_sq(edge[2]), l1 = length_sq(edge[1]);
  const double along = dot(edge[0], edge[2]);
  const double longest = std::max({l0, l1, l2});
  if (!(l0 * l2 - along * along >= 1e-8 * longest * longest)) return out;
  Vec3d n = f.shape.normal;
  double h0 = -dot(n, v[0]), h1 = h0 + dot(n, f.e);  // heights of a and b
  if (h0 < 0) {
    n = -n;
    h0 = -h0;
    h1 = -h1;
  }
  const double r = f.r;
  const double scale = r + std::max({max_abs_component(f.e), max_abs_component(f.d), max_abs_component(v[0]),
                                     max_abs_component(v[1]), max_abs_component(v[2])});
  const double margin = 1e-6 * scale;
  const double low = std::min(h0, h1);
  if (!(low > r + margin)) return out;  // within reach of the plane at the start, or across it
  const double approach = -dot(n, f.d);
  if (approach <= low - r - margin) {
    out.kind = FaceFirst::Kind::miss;
    return out;
  }
  if (!(approach * (1 - 1e-6) >= low - r + margin)) return out;  // the plane reached near t = 1
  const double t_face = (low - r) / approach;
  const double delta = 1e-2 * r + margin;
  // The path leaves the inset by at most delta / 2 before an edge could be met, and that is
  // at least 1e-6 after the face.
  if (!(delta * length(f.d) <= 2 * r * approach) || !(delta * delta >= 8e-6 * r * approach) || !(delta <= r)) return out;
  // Only the part of the axis within delta of the lowest height can touch anything before the
  // rest has come down that far, delta / approach after t_face (far beyond the separation above):
  // a person on a slope stands on its feet, wherever the head lies over the plane. Each corner of
  // that part's sweep (its ends, at 0 and at t_face) at least delta inside each edge's side: along
  // the side's direction, the farthest corner reaches (lower end) + max(0, up that part) +
  // max(0, d t_face).
  const bool a_low = h0 <= h1;
  const double rise = a_low ? h1 - h0 : h0 - h1;
  const double part = rise > delta ? delta / rise : 1.0;
  for (int k = 0; k < 3; ++k) {
    const Vec3d side = cross(edge[k], f.shape.normal);  // in the plane, out across edge k (the winding)
    const double along_e = dot(side, f.e), along_d = dot(side, f.d) * t_face;
    const double farthest = a_low ? std::max(0.0, along_e * part) + std::max(0.0, along_d)
                                  : along_e + std::max(0.0, -along_e * part) + std::max(0.0, along_d);
    const double inside = dot(side, v[k]) - farthest;
    if (!(inside >= 0 && inside * inside >= delta * delta * length_sq(side))) return out;
  }
  out.kind = FaceFirst::Kind::face;
  out.normal = n;
  out.a_first = h0 + margin < h1;
  return out;
}

}  // namespace

FaceFirst face_first(const Capsule& capsule, const Vec3& motion, const Triangle& triangle) {
  Vec3d origin;
  return decide(frame_at(capsule.a, capsule.b, capsule.radius, motion, triangle.v, origin));
}

// Where face_first says the end a meets the face first, the kernel (core/sweep.cpp) finds that
// part first and every other part later: enter_slab's two face clips for the end a (the side
// clips cannot move the entry, the path lying inside them) and take's contact point, written
// with the kernel's own expressions so that the bits are its bits, then sweep_validated's
// rounding itself (tests/core/face_first_test.cpp holds them to the kernel's).
bool sweep_face_first(const Capsule& capsule, const Vec3& motion, const Triangle& triangle, SweepHit& hit,
                      double* exact_t) {
  if (!(capsule.radius > 0.f)) {  // a ray or segment: swept as a thin capsule of its own
    sweep_capsule_triangle_unchecked(capsule, motion, triangle, hit);
    return false;
  }
  // The kernel's own frame (sweep_validated's), so that its bits are the kernel's.
  Vec3d origin;
  const Frame f = frame_at(capsule.a, capsule.b, capsule.radius, motion, triangle.v, origin);
  const FaceFirst quick = decide(f);
  Best best;
  bool told = true;
  if (quick.kind == FaceFirst::Kind::face && quick.a_first) {
    // enter_slab: c = n . poly[0]; clip(n, c + r) enters where n . d < 0, else clip(-n, r - c).
    const Vec3d& n = f.shape.normal;
    const double c = dot(n, f.v[0]);
    const bool from_above = dot(n, f.d) < 0;
    const Vec3d g = from_above ? n : -n;
    best.t = (from_above ? c + f.r : f.r - c) / dot(g, f.d);
    best.normal = g;
    best.point = f.d * best.t - g * f.r;  // take(t, n, d * t - n * r, face)
    best.feature = Feature::face;
  } else if (quick.kind != FaceFirst::Kind::miss) {
    sweep_frame(f, best);
    told = false;
  }
  hit_from(best, origin, 0.0, hit);
  if (exact_t) *exact_t = best.t;
  return told;
}

}  // namespace capsweep::detail
