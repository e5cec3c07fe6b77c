#include "tests/support/scene_oracle.h"

#include <algorithm>
#include <cmath>

#include "tests/support/oracle.h"

namespace oracle {

using namespace capsweep;

std::string judge_scene(const SweepHit& hit, const SweepQuery& q, std::span<const Triangle> triangles,
                        const TriangleGrid* grid) {
  double largest = 0;
  for (const Vec3& v : {q.capsule.a, q.capsule.b, q.capsule.a + q.motion, q.capsule.b + q.motion}) {
    largest = std::max(largest, double(max_abs_component(v)));
  }
  const double r = q.capsule.radius;
  const Vec3d a = to_double(q.capsule.a), b = to_double(q.capsule.b), d = to_double(q.motion);
  // Every triangle the grown capsule could reach (its box meets the swept box).
  double tol = tolerance(largest);
  const Aabb reach = swept_bounds({q.capsule.a, q.capsule.b, float(r + 2 * tol) + 1e-3f}, q.motion);
  std::vector<std::size_t> near;
  if (grid) {
    near = grid->near(reach);
  } else {
    for (std::size_t i = 0; i < triangles.size(); ++i) {
      if (reach.overlaps(bounds(triangles[i]))) near.push_back(i);
    }
  }
  for (std::size_t i : near) {
    for (const Vec3& v : triangles[i].v) largest = std::max(largest, double(max_abs_component(v)));
  }
  tol = tolerance(largest);
  const double eta = tol / 8;
  double shrunk = INFINITY, grown = INFINITY;
  for (std::size_t i : near) {
    const Obstacle o = triangle_obstacle(triangles[i]);
    if (auto t = time_of_impact(o, a, b, d, std::max(r - tol, 0.0), eta)) shrunk = std::min(shrunk, *t);
    if (auto t = time_of_impact(o, a, b, d, r + tol - eta, eta)) grown = std::min(grown, *t);
  }
  if (!hit.hit) {
    return shrunk <= 1 ? "missed, but the shrunk capsule touches at t=" + std::to_string(shrunk) : "";
  }
  if (hit.triangle >= triangles.size()) return "hit names no triangle";
  if (hit.t < grown) return "t=" + std::to_string(hit.t) + " before the grown capsule's first contact " + std::to_string(grown);
  if (hit.t > shrunk) return "t=" + std::to_string(hit.t) + " after the shrunk capsule's first contact " + std::to_string(shrunk);
  const std::string why =
      judge(hit, q.capsule, q.motion, r, triangle_obstacle(triangles[hit.triangle]), tol);
  return why.empty() ? "" : "triangle " + std::to_string(hit.triangle) + ": " + why;
}

}  // namespace oracle
