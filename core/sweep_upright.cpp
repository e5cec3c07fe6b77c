#include "core/sweep_upright.h"

#include <algorithm>
#include <cmath>

#include <capsweep/sweep.h>
#include "core/sweep_frame.h"

namespace capsweep::detail {

bool sweep_upright_capsules(const Capsule& moving_in, const Vec3& motion, const Capsule& obstacle, SweepHit& hit) {
  if (!is_upright(moving_in) || !is_upright(obstacle)) return false;
  const Capsule moving = swept_capsule(moving_in, motion);
  // Relative to the moving capsule's end a: its axis is [0, e] with e vertical, and t d comes
  // within reach of the obstacle's axis exactly when it comes within r of the offsets
  // {q - s e : q on the obstacle's axis, s in [0, 1]}: one vertical segment at (cx, cz) from
  // y = lo to y = hi. (Minkowski difference of two parallel segments.)
  const Vec3d origin = to_double(moving.a);
  const double e = double(moving.b.y) - origin.y;
  const double cx = double(obstacle.a.x) - origin.x, cz = double(obstacle.a.z) - origin.z;
  const double y0 = double(obstacle.a.y) - origin.y, y1 = double(obstacle.b.y) - origin.y;
  const double lo = std::min(y0, y1) - std::max(0.0, e), hi = std::max(y0, y1) - std::min(0.0, e);
  const double r = double(moving.radius) + double(obstacle.radius);
  const double cc = cx * cx + cz * cz;
  // A start within reach, or within 1e-9 x the magnitudes involved of it (far above the
  // rounding of the offsets), is an overlap or a touch: the general kernel's.
  const double below = std::max({0.0, lo, -hi});
  const double margin = 1e-9 * (r + std::fabs(cx) + std::fabs(cz) + std::fabs(lo) + std::fabs(hi));
  if (cc + below * below <= (r + margin) * (r + margin)) return false;

  const Vec3d d = to_double(motion);
  double best = INFINITY;
  Vec3d normal, on_axis;  // unit, from the obstacle toward the capsule; the point on the obstacle's axis
  Feature feature = Feature::none;
  // The side: |t (dx, dz) - c|^2 = r^2 horizontally, entered at a height in [lo, hi].
  const double aa = d.x * d.x + d.z * d.z, bb = cx * d.x + cz * d.z, c0 = cc - r * r;
  if (c0 > 0 && bb > 0) {
    const double disc = bb * bb - aa * c0;
    if (disc >= 0) {
      const double t = c0 / (bb + std::sqrt(disc));
      const double y = t * d.y;
      if (t <= 1 && y >= lo && y <= hi) {
        const double nx = t * d.x - cx, nz = t * d.z - cz, len = std::sqrt(nx * nx + nz * nz);
        if (len > 0) {
          best = t;
          normal = {nx / len, 0, nz / len};
          // The axes side by side share a run of heights at contact; its middle is the point.
          const double top = std::min(std::max(y0, y1), y + std::max(0.0, e));
          const double bottom = std::max(std::min(y0, y1), y + std::min(0.0, e));
          on_axis = {cx, 0.5 * (top + bottom), cz};
          feature = y0 == y1 ? Feature::vertex : Feature::edge;  // a sphere has no side
        }
      }
    }
  }
  // The ends: the obstacle's lower end meets the moving axis' upper end, and the other way round.
  for (const double end : {lo, hi}) {
    const Vec3d center{cx, end, cz};
    double t;
    Vec3d n;
    if (!enter_sphere(center, r, d, t, n) || !(t < best)) continue;
    best = t;
    normal = n;
    on_axis = {cx, end == lo ? std::min(y0, y1) : std::max(y0, y1), cz};
    feature = Feature::vertex;
  }
  hit = SweepHit{};
  if (!(best <= 1)) return true;
  hit.hit = true;
  hit.t = round_time_down(best);
  hit.normal = to_float(normal);
  hit.point = to_float(origin + on_axis + normal * double(obstacle.radius));
  hit.feature = feature;
  return true;
}

}  // namespace capsweep::detail
