// The world's answers to the movement solver beyond a sweep: the face normal on a seam, whether a
// contact is ground to stand on, the deepest overlap, the ground under a body.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "world/closest_hit.h"
#include "world/contacts_near.h"
#include "world/solver_queries.h"
#include "world/world_collider.h"
#include "core/closest_point.h"

namespace capsweep {

bool ground_below(const World& world, const Body& body, const MoveSettings& m, float reach, SweepPath path,
                  std::uint32_t layers, SweepHit& ground, Vec3& normal) {
  const Body skinned = with_skin(body, m.skin);
  if (skinned.is_capsule()) {
    sweep_approaching(world, {skinned.capsule, Vec3{0, -reach, 0}}, ground, path, layers);
  } else {
    sweep_ellipsoid_approaching(world, {skinned.ellipsoid, Vec3{0, -reach, 0}}, ground, path, layers);
  }
  return walkable(world, ground, std::cos(m.max_slope_degrees * std::numbers::pi_v<float> / 180.f), normal, layers);
}

namespace {

// Whether every triangle of the flat fan around vertex s of triangle t is on the walk's layers:
// a hidden one opens the fan, and the vertex is then no seam for that walk. The fan is walked
// through the seams as link_triangles closed it (the same steps, vertices matched by position,
// which is what welding matched).
bool fan_seen(const WorldArrays& w, std::uint32_t t, int s, std::uint32_t layers) {
  if (layers == kAllLayers) return true;
  // A heightfield's fans hold its own triangles only, all on its one mask (seen, or t would
  // not have been hit); so do an instance's (its links stay within it).
  if (t >= w.mesh_count()) return true;
  const Vec3 v = w.mesh_triangle(t).v[s];
  std::uint32_t current = t;
  int out_edge = s;
  for (int step = 0; step < 64; ++step) {
    const std::uint32_t next = w.links.across(current, out_edge);
    if (next >= w.mesh_count() || !seen(w, next, layers)) return false;
    if (next == t) return true;
    int at = 0;
    const Triangle n = w.mesh_triangle(next);
    while (at < 3 && !(n.v[at] == v)) ++at;
    if (at == 3) return false;
    const int e_in = w.links.across(next, at) == current ? at : (at + 2) % 3;
    out_edge = e_in == at ? (at + 2) % 3 : at;
    current = next;
  }
  return false;
}

}  // namespace

void seam_normal(const World& world, SweepHit& h, float radius, std::uint32_t layers) {
  seam_normal(world.arrays(), h, radius, layers);
}

void seam_normal(const WorldArrays& w, SweepHit& h, float radius, std::uint32_t layers) {
  if (h.triangle >= world_triangle_count(w) || (h.feature != Feature::edge && h.feature != Feature::vertex)) return;
  const TriangleLinks links = links_at(w, h.triangle);
  const Triangle t = triangle_at(w, h.triangle);
  const Vec3d p = to_double(h.point);
  bool seam = false;
  if (h.feature == Feature::edge) {
    // The edge the contact point lies on: the nearest of the three.
    int best = 0;
    double best_d = INFINITY;
    for (int i = 0; i < 3; ++i) {
      const Vec3d a = to_double(t.v[i]), e = to_double(t.v[(i + 1) % 3]) - a;
      const double len_sq = length_sq(e);
      const double s = len_sq > 0 ? std::clamp(dot(p - a, e) / len_sq, 0.0, 1.0) : 0.0;
      const double d = length_sq(p - (a + e * s));
      if (d < best_d) best_d = d, best = i;
    }
    // A neighbour the walk does not see is not there: the edge is an open rim.
    seam = (links.seam_edges >> best & 1) && seen(w, links.across[best], layers);
  } else {
    int best = 0;
    double best_d = INFINITY;
    for (int i = 0; i < 3; ++i) {
      const double d = length_sq(p - to_double(t.v[i]));
      if (d < best_d) best_d = d, best = i;
    }
    seam = (links.flat_vertices >> best & 1) && fan_seen(w, h.triangle, best, layers);
  }
  if (!seam) return;
  Vec3 n = face_normal(t);
  if (dot(n, h.normal) < 0) n = -n;
  // Passing through the seam may bring the capsule closer to its edge than the radius by
  // radius * (1 - cos(angle between the normals)): only trusted while that stays far below the
  // exactness tolerance (exactly coplanar faces: float noise; bent ones: tiny angles).
  const double slack = std::max(2.5e-5, 1e-7 * double(max_abs_component(h.point)));
  if (double(radius) * (1.0 - double(dot(n, h.normal))) <= slack) h.normal = n;
}

bool KeepApproaching::operator()(SweepHit& h) const {
  seam_normal(*arrays, h, radius, layers);
  return dot(h.normal, motion) < 0;
}

bool walkable(const World& world, const SweepHit& hit, float min_up, Vec3& ground_normal, std::uint32_t layers) {
  const WorldArrays& w = world.arrays();
  layers = walk_layers(w, layers);
  if (!hit.hit) return false;
  if (hit.normal.y >= min_up) {
    ground_normal = hit.normal;
    return true;
  }
  if (hit.triangle >= world_triangle_count(w) || (hit.feature != Feature::edge && hit.feature != Feature::vertex)) {
    return false;
  }
  // On a rim: the faces meeting there (this triangle, and its neighbours across the edges
  // through the contact point), each seen from the agent's side.
  const Triangle t = triangle_at(w, hit.triangle);
  const TriangleLinks links = links_at(w, hit.triangle);
  std::uint32_t candidates[3] = {hit.triangle, kNoTriangle, kNoTriangle};
  const Vec3d p = to_double(hit.point);
  for (int i = 0, k = 1; i < 3; ++i) {
    const Vec3d a = to_double(t.v[i]), e = to_double(t.v[(i + 1) % 3]) - a;
    const double len_sq = length_sq(e);
    const double s = len_sq > 0 ? std::clamp(dot(p - a, e) / len_sq, 0.0, 1.0) : 0.0;
    const double d = length(p - (a + e * s));
    // Within rounding of the edge (the contact point is computed on it).
    // A neighbour on none of the batch's layers is not there: the rim is an open edge.
    if (d <= 1e-5 * (1.0 + std::sqrt(len_sq)) && k < 3) {
      const std::uint32_t across = links.across[i];
      candidates[k++] = across != kNoTriangle && seen(w, across, layers) ? across : kNoTriangle;
    }
  }
  for (std::uint32_t c : candidates) {
    if (c == kNoTriangle) continue;
    Vec3 n = face_normal(triangle_at(w, c));
    if (dot(n, hit.normal) < 0) n = -n;
    if (n.y >= min_up) {
      ground_normal = n;
      return true;
    }
  }
  return false;
}

bool World::deepest_overlap(const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                            std::uint32_t layers) const {
  // A refused capsule overlaps nothing (as World::overlap says of it): its contacts would be
  // the refused call's empty ones.
  if (check_capsule(capsule) != Status::ok) return false;
  return deepest_overlap_unchecked(*arrays_, capsule, contact, triangle, layers);
}

bool deepest_overlap_unchecked(const WorldArrays& w, const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                               std::uint32_t layers) {
  DeepestOverlap deepest;
  for_each_contact(w, capsule, 0.f, [&](std::uint32_t i, const Contact& k) {
    deepest.offer(i, k, capsule.radius);
    return false;
  }, layers);
  if (deepest.found) {
    contact = deepest.contact;
    triangle = deepest.triangle;
  }
  return deepest.found;
}

}  // namespace capsweep
