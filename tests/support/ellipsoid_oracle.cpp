#include "tests/support/ellipsoid_oracle.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>
#include <vector>

#include "tests/support/oracle.h"

namespace oracle {

using namespace capsweep;

namespace {

Vec3d divide(const Vec3d& v, const Vec3d& by) { return {v.x / by.x, v.y / by.y, v.z / by.z}; }

// The first contact of the ellipsoid with radii `radii` over the triangles: in its eSpace, the
// centre (a point) reaches distance 1 + eta_e.
std::optional<double> first_contact(const SweepEllipsoidQuery& q, const Vec3d& radii, std::span<const Triangle> tris,
                                    double sphere_radius, double eta_e) {
  const Vec3d c = to_double(q.ellipsoid.centre);
  const Vec3d d = divide(to_double(q.motion), radii);
  std::optional<double> best;
  for (const Triangle& t : tris) {
    Vec3d v[3];
    for (int k = 0; k < 3; ++k) v[k] = divide(to_double(t.v[k]) - c, radii);
    const Obstacle o = [v](const Vec3d& p0, const Vec3d& p1) { return segment_triangle(p0, p1, v); };
    if (auto tt = time_of_impact(o, {}, {}, d, sphere_radius, eta_e); tt && (!best || *tt < *best)) best = tt;
  }
  return best;
}

}  // namespace

std::string judge_ellipsoid(const SweepHit& hit, const SweepEllipsoidQuery& q, std::span<const Triangle> tris,
                            double tol) {
  std::ostringstream why;
  why.precision(17);
  const Vec3d radii = to_double(q.ellipsoid.radii);
  const Vec3d c = to_double(q.ellipsoid.centre), motion = to_double(q.motion);
  const double largest_r = std::max({radii.x, radii.y, radii.z});
  const double smallest_r = std::min({radii.x, radii.y, radii.z});
  // eSpace slack worth tol / 8 in world space, measured in the widest direction.
  const double eta_e = tol / 8 / largest_r;
  const Vec3d shrunk_r = {std::max(radii.x - tol, 1e-9), std::max(radii.y - tol, 1e-9), std::max(radii.z - tol, 1e-9)};
  const Vec3d grown_r = {radii.x + tol, radii.y + tol, radii.z + tol};
  const auto shrunk = first_contact(q, shrunk_r, tris, 1.0, eta_e);
  if (!hit.hit) {
    if (shrunk) why << "missed, but the shrunk ellipsoid touches at t=" << *shrunk;
    return why.str();
  }
  if (hit.triangle >= tris.size()) return "hit names no triangle";
  const auto grown = first_contact(q, grown_r, tris, 1.0 - eta_e, eta_e);
  const double t = hit.t;
  if (!(t >= 0 && t <= 1)) why << "t=" << t << " outside [0,1]; ";
  if (!grown) why << "hit at t=" << t << " but the grown ellipsoid never touches; ";
  else if (t < *grown) why << "t=" << t << " before the grown ellipsoid's contact " << *grown << "; ";
  if (shrunk && t > *shrunk) why << "t=" << t << " after the shrunk ellipsoid's contact " << *shrunk << "; ";

  // The reported triangle in the true eSpace at t.
  const Triangle& tri = tris[hit.triangle];
  Vec3d v[3];
  const Vec3d at = c + motion * t;
  for (int k = 0; k < 3; ++k) v[k] = divide(to_double(tri.v[k]) - at, radii);
  const Gap g = segment_triangle({}, {}, v);
  if (g.distance > 1 + tol / smallest_r) why << "at t the reported triangle is " << g.distance << " away in eSpace; ";
  const Vec3d n = to_double(hit.normal);
  if (std::fabs(length(n) - 1) > 1e-5) why << "normal not unit; ";
  const Vec3d p = to_double(hit.point);
  Vec3d tv[3];
  for (int k = 0; k < 3; ++k) tv[k] = to_double(tri.v[k]);
  if (segment_triangle(p, p, tv).distance > 2 * tol) why << "point off the triangle; ";
  if (hit.t == 0.f) {
    // Pushed out by depth along the normal, the shrunk ellipsoid overlaps nothing it touched.
    const Vec3d moved = c + n * double(hit.depth);
    Vec3d s[3];
    for (int k = 0; k < 3; ++k) s[k] = divide(tv[k] - moved, shrunk_r);
    if (segment_triangle({}, {}, s).distance < 1 - 1e-9) why << "the push-out leaves an overlap; ";
  } else {
    if (hit.depth != 0.f) why << "depth on a moving hit; ";
    // The ellipsoid's surface normal where it touches: the eSpace direction from the triangle
    // to the centre, through the inverse transpose (divided by the radii).
    if (g.distance > 0.5) {
      Vec3d expect = divide(g.w / g.distance, radii);
      expect = expect / length(expect);
      const double allowed = 2e-4 + 4 * tol / smallest_r;
      if (length(n - expect) > allowed) why << "normal off by " << length(n - expect) << "; ";
    }
  }
  return why.str();
}

std::string judge_ellipsoid_scene(const SweepHit& hit, const SweepEllipsoidQuery& q, std::span<const Triangle> triangles,
                                  const TriangleGrid& grid) {
  const Ellipsoid& e = q.ellipsoid;
  Aabb reach;
  const float pad = 0.01f;
  for (const Vec3& c : {e.centre, e.centre + q.motion}) {
    reach.grow(c - e.radii - Vec3{pad, pad, pad});
    reach.grow(c + e.radii + Vec3{pad, pad, pad});
  }
  double largest = std::max(max_abs_component(reach.min), max_abs_component(reach.max));
  std::vector<std::size_t> near = grid.near(reach);
  std::vector<Triangle> candidates;
  std::vector<std::uint32_t> index;
  for (std::size_t i : near) {
    candidates.push_back(triangles[i]);
    index.push_back(std::uint32_t(i));
    for (const Vec3& v : triangles[i].v) largest = std::max(largest, double(max_abs_component(v)));
  }
  SweepHit local = hit;
  if (hit.hit) {
    const auto at = std::find(index.begin(), index.end(), hit.triangle);
    if (at == index.end()) return "the reported triangle is out of reach";
    local.triangle = std::uint32_t(at - index.begin());
  }
  return judge_ellipsoid(local, q, candidates, tolerance(largest));
}

}  // namespace oracle
