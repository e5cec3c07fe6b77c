// Movement invariants on every scene of scenes/ and the arena, over at least 1,000,000 agent-moves
// at walking speed and 1,000,000 at 100 m per tick, agents colliding:
//   - no agent ends a tick closer to the mesh than skin - tolerance (exact distance, the
//     oracle's own code, candidates from the oracle's own grid);
//   - every segment an agent travelled keeps that clearance along its whole path: the axis
//     sweeps a parallelogram, and its distance to each triangle is a triangle-triangle distance
//     (the oracle's segment-triangle distance over the edges of both);
//   - no two agents overlap beyond the tolerance.
// The same for crowds of ellipsoid agents (the person as an ellipsoid, radii 0.35, 0.9, 0.35),
// whose skin is the ellipsoid scaled out by it (core/body.h), measured in its eSpace with the
// oracle's point-triangle distance (at the end of a tick) and segment-triangle distance (the
// centre's path against the triangle divided by the radii): r_min (d - 1) >= skin - tolerance,
// which puts every point within skin - tolerance of the ellipsoid clear of the mesh; other agents
// meet an ellipsoid as the capsule holding it, and those capsules never overlap.
// The same on a heightfield with buildings on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <initializer_list>
#include <mutex>

#include "parallel/executor.h"

#include "broadphase/agent_grid.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include <capsweep/files.h>
#include "tests/support/oracle.h"
#include "tests/support/scene_list.h"
#include "tests/support/terrains.h"
#include "tests/support/triangle_grid.h"

namespace {

using namespace capsweep;


double triangle_triangle(const Vec3d a[3], const Vec3d b[3]) {
  double best = INFINITY;
  for (int i = 0; i < 3; ++i) {
    best = std::min(best, oracle::segment_triangle(a[i], a[(i + 1) % 3], b).distance);
    best = std::min(best, oracle::segment_triangle(b[i], b[(i + 1) % 3], a).distance);
  }
  return best;
}

// The surface the axis [p, q] sweeps moving by d: a parallelogram (two triangles), or one
// segment when d is along the axis.
struct SweptAxis {
  bool flat = false;
  Vec3d lo, hi;        // flat: the segment
  Vec3d t1[3], t2[3];  // otherwise: the parallelogram's halves
};

SweptAxis swept_axis(const Vec3d& p, const Vec3d& q, const Vec3d& d) {
  SweptAxis s;
  const Vec3d e = q - p;
  if (length(cross(e, d)) <= 1e-12 * (length_sq(e) + length_sq(d))) {
    s.flat = true;
    s.lo = s.hi = p;
    for (const Vec3d& v : {q, p + d, q + d}) {
      if (dot(v - p, e + d) < dot(s.lo - p, e + d)) s.lo = v;
      if (dot(v - p, e + d) > dot(s.hi - p, e + d)) s.hi = v;
    }
    return s;
  }
  s.t1[0] = p, s.t1[1] = q, s.t1[2] = q + d;
  s.t2[0] = p, s.t2[1] = q + d, s.t2[2] = p + d;
  return s;
}

// Closest approach of the swept axis to the triangle.
double path_distance(const SweptAxis& s, const Vec3d tri[3]) {
  if (s.flat) return oracle::segment_triangle(s.lo, s.hi, tri).distance;
  return std::min(triangle_triangle(s.t1, tri), triangle_triangle(s.t2, tri));
}

// A lower bound of the distance from any point of the convex hull of `corners` to the triangle,
// tight where the centroid ball below is loose (the floor an agent walks on, a wall it slides
// along): when every corner lies on one side of the triangle's plane, the whole hull is at least
// the nearest corner's distance from that plane, hence from the triangle. A sliver's normal is
// too uncertain to bound by (its direction error grows as the area shrinks), so it gets none.
double plane_distance_lower_bound(std::initializer_list<Vec3d> corners, const Vec3d tri[3]) {
  const Vec3d e1 = tri[1] - tri[0], e2 = tri[2] - tri[0], c = cross(e1, e2);
  const double area2 = length(c);
  if (!(area2 > 1e-6 * length(e1) * length(e2))) return -INFINITY;
  const Vec3d n = c / area2;
  double lo = INFINITY, hi = -INFINITY;
  for (const Vec3d& x : corners) {
    const double side = dot(n, x - tri[0]);
    lo = std::min(lo, side), hi = std::max(hi, side);
  }
  return lo > 0 ? lo : hi < 0 ? -hi : -INFINITY;
}

// A lower bound of the distance between the convex hull of `corners` and the triangle: for any
// unit u and points x, y of the two hulls, |y - x| >= u.(y - x), so the gap between their
// projections onto u bounds the distance (the separating axis theorem read as a distance). Any
// direction gives a true bound, so a sliver's unreliable edge normals cost nothing but
// tightness; these are the ones likely to be tight where the plane bound is not: the triangle's
// in-plane edge normals (a path passing beside a wall's end or a step's edge), the line between
// the two centres, and, for the hull's edge directions `sides` (the axis, the motion), each one
// crossed with each triangle edge and the hull's own normal (where an edge of the path passes
// an edge of a wall, the distance is along their cross product: the axes of the separating
// axis theorem for two convex polytopes).
double separating_axes_lower_bound(std::initializer_list<Vec3d> corners, const Vec3d tri[3],
                                   std::initializer_list<Vec3d> sides, double enough = INFINITY) {
  const Vec3d e[3] = {tri[1] - tri[0], tri[2] - tri[1], tri[0] - tri[2]};
  const Vec3d n = cross(e[0], tri[2] - tri[0]);
  Vec3d centre{};
  for (const Vec3d& x : corners) centre = centre + x;
  centre = centre / double(corners.size());
  Vec3d axes[4 + 2 * 3 + 1];
  int count = 0;
  for (const Vec3d& edge : e) axes[count++] = cross(edge, n);
  axes[count++] = (tri[0] + tri[1] + tri[2]) / 3.0 - centre;
  for (const Vec3d& side : sides) {
    for (const Vec3d& edge : e) axes[count++] = cross(side, edge);
  }
  if (sides.size() == 2) axes[count++] = cross(*sides.begin(), *(sides.begin() + 1));
  double best = -INFINITY;
  for (int k = 0; k < count; ++k) {
    const Vec3d& axis = axes[k];
    const double size = length(axis);
    if (!(size > 0)) continue;
    const Vec3d u = axis / size;
    double lo = INFINITY, hi = -INFINITY;
    for (const Vec3d& x : corners) lo = std::min(lo, dot(u, x)), hi = std::max(hi, dot(u, x));
    const double t0 = dot(u, tri[0]), t1 = dot(u, tri[1]), t2 = dot(u, tri[2]);
    const double tlo = std::min({t0, t1, t2}), thi = std::max({t0, t1, t2});
    best = std::max({best, tlo - hi, lo - thi});
    if (best > enough) break;  // proved far enough: the other axes cannot lower it
  }
  return best;
}

// A lower bound of path_distance for a fraction of its work: the plane and separating-axis bounds
// above (a few dot products), and where neither reaches `enough`, the distance from the swept
// axis to the triangle's centroid less the distance from the centroid to its farthest vertex
// (the triangle lies in that ball: two point distances instead of twelve segment distances). It
// only lets the check pass over triangles it proves far; every other one is measured exactly.
double path_distance_lower_bound(const SweptAxis& s, const Vec3d tri[3], double enough) {
  const double plane = s.flat ? plane_distance_lower_bound({s.lo, s.hi}, tri)
                              : plane_distance_lower_bound({s.t1[0], s.t1[1], s.t1[2], s.t2[2]}, tri);
  if (plane > enough) return plane;
  const double sides = s.flat ? separating_axes_lower_bound({s.lo, s.hi}, tri, {s.hi - s.lo}, enough)
                              : separating_axes_lower_bound({s.t1[0], s.t1[1], s.t1[2], s.t2[2]}, tri,
                                                            {s.t1[1] - s.t1[0], s.t1[2] - s.t1[1]}, enough);
  const double cheap = std::max(plane, sides);
  if (cheap > enough) return cheap;
  const Vec3d c = (tri[0] + tri[1] + tri[2]) / 3.0;
  const double r = std::max({length(tri[0] - c), length(tri[1] - c), length(tri[2] - c)});
  const double to_c = s.flat ? oracle::point_segment(c, s.lo, s.hi).distance
                             : std::min(oracle::point_triangle(c, s.t1).distance, oracle::point_triangle(c, s.t2).distance);
  return std::max(to_c - r, cheap);
}

struct Speed {
  const char* name;
  float metres_per_second;
  Steering steering;
  std::size_t agents, ticks;
  AgentShape shape = AgentShape::capsule;
};

Vec3d divide(const Vec3d& v, const Vec3d& by) { return {v.x / by.x, v.y / by.y, v.z / by.z}; }

// The skin an ellipsoid keeps from a triangle while its centre moves by d (d = 0: where it is):
// r_min (d - 1) for the eSpace distance d from the centre's path to the triangle.
double ellipsoid_clearance(const Ellipsoid& e, const Vec3d& d, const Triangle& t) {
  const Vec3d c = to_double(e.centre), r = to_double(e.radii);
  Vec3d v[3];
  for (int k = 0; k < 3; ++k) v[k] = divide(to_double(t.v[k]) - c, r);
  const double distance = oracle::segment_triangle({}, divide(d, r), v).distance;
  return std::min({r.x, r.y, r.z}) * (distance - 1);
}

// A lower bound of ellipsoid_clearance for a fraction of its work: the plane and separating-axis
// bounds in eSpace.
double ellipsoid_clearance_lower_bound(const Ellipsoid& e, const Vec3d& d, const Triangle& t) {
  const Vec3d c = to_double(e.centre), r = to_double(e.radii);
  Vec3d v[3];
  for (int k = 0; k < 3; ++k) v[k] = divide(to_double(t.v[k]) - c, r);
  const double bound = std::max(plane_distance_lower_bound({Vec3d{}, divide(d, r)}, v),
                                separating_axes_lower_bound({Vec3d{}, divide(d, r)}, v, {divide(d, r)}));
  return std::min({r.x, r.y, r.z}) * (bound - 1);
}

// The box an ellipsoid scaled out by `reach` covers on its way along d.
Aabb ellipsoid_box(const Ellipsoid& e, const Vec3& d, float reach) {
  const float k = 1 + reach / std::min({e.radii.x, e.radii.y, e.radii.z});
  const Vec3 r = e.radii * k;
  Aabb b;
  for (const Vec3& c : {e.centre, e.centre + d}) {
    b.grow(c - r);
    b.grow(c + r);
  }
  return b;
}

// `triangles`: everything the world holds, for the oracle (a heightfield's as a mesh).
void check_crowd(const World& world, const std::vector<Triangle>& triangles, const std::string& scene,
                 const Speed& speed) {
  const oracle::TriangleGrid grid(triangles);
  CrowdSettings cs;
  cs.agents = speed.agents;
  cs.seed = 11;
  cs.min_speed = cs.max_speed = speed.metres_per_second;
  cs.steering = speed.steering;
  cs.trace = true;
  if (speed.shape == AgentShape::ellipsoid) cs.agent_shapes = {AgentShape::ellipsoid};
  Crowd crowd(world, cs);
  const double tol = crowd.tolerance();
  const double clearance = cs.move.skin - tol;
  std::atomic<std::size_t> inside{0}, through{0}, overlapping{0}, segments{0};
  std::string first_failure;
  std::mutex failure_mutex;
  auto report = [&](const std::string& what) {
    std::lock_guard lock(failure_mutex);
    if (first_failure.size() < 2000) first_failure += what + "\n";
  };
  for (std::size_t tick = 0; tick < speed.ticks; ++tick) {
    crowd.tick();
    const auto& agents = crowd.agents();
    AgentGrid others;
    std::vector<Capsule> ends(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) ends[i] = agents[i].capsule;
    others.build(ends);
    parallel::for_ranges<std::size_t>(0, agents.size(), 8, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        const Capsule& c = ends[i];
        const Vec3d p = to_double(c.a), q = to_double(c.b);
        const double reach = c.radius + cs.move.skin;
        if (agents[i].shape == AgentShape::ellipsoid) {
          const Ellipsoid& e = agents[i].ellipsoid;
          // End of tick: its skin clear of the mesh.
          for (std::size_t k : grid.near(ellipsoid_box(e, {}, cs.move.skin))) {
            if (ellipsoid_clearance_lower_bound(e, {}, triangles[k]) > clearance + 1e-6) continue;  // proved far
            if (const double g = ellipsoid_clearance(e, {}, triangles[k]); g < clearance) {
              report("ellipsoid agent " + std::to_string(i) + " ends with a skin of " + std::to_string(g) +
                     " m from triangle " + std::to_string(k));
              ++inside;
              break;
            }
          }
          // Every segment travelled, along its whole path: the centre's segment in eSpace.
          const MoveSegments& s = crowd.segments()[i];
          segments += std::size_t(s.count);
          for (int k = 0; k < s.count; ++k) {
            const Ellipsoid& from = s.segment[k].ellipsoid;
            const Vec3& motion = s.segment[k].motion;
            const int pieces = std::max(1, int(std::ceil(length(motion) / 2.f)));
            bool free = true;
            for (int piece = 0; piece < pieces && free; ++piece) {
              const Vec3d d = to_double(motion) / double(pieces);
              const Ellipsoid at{to_float(to_double(from.centre) + d * double(piece)), from.radii};
              for (std::size_t tri : grid.near(ellipsoid_box(at, to_float(d), cs.move.skin + 1e-3f))) {
                if (ellipsoid_clearance_lower_bound(at, d, triangles[tri]) > clearance + 1e-6) continue;  // proved far
                if (const double g = ellipsoid_clearance(at, d, triangles[tri]); g < clearance) {
                  char text[400];
                  std::snprintf(text, sizeof text,
                                "ellipsoid agent %zu segment %d of %d keeps a skin of %.6g m from triangle %zu: from "
                                "(%.9g %.9g %.9g) motion (%.9g %.9g %.9g)",
                                i, k, s.count, g, tri, from.centre.x, from.centre.y, from.centre.z, motion.x, motion.y,
                                motion.z);
                  report(text);
                  free = false;
                  break;
                }
              }
            }
            if (!free) ++through;
          }
        } else {
          // End of tick: clear of the mesh by the skin.
          SweptAxis axis;  // the axis where it stands
          axis.flat = true, axis.lo = p, axis.hi = q;
          for (std::size_t k : grid.near(swept_bounds({c.a, c.b, float(reach)}, {}))) {
            const Triangle& t = triangles[k];
            const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
            if (path_distance_lower_bound(axis, v, c.radius + clearance + 1e-6) - c.radius > clearance + 1e-6) {
              continue;  // proved far
            }
            if (const double g = oracle::segment_triangle(p, q, v).distance - c.radius; g < clearance) {
              report("agent " + std::to_string(i) + " ends " + std::to_string(g) + " m from triangle " +
                     std::to_string(k));
              ++inside;
              break;
            }
          }
          // Every segment travelled, along its whole path (candidates gathered per 2 m piece).
          const MoveSegments& s = crowd.segments()[i];
          segments += std::size_t(s.count);
          for (int k = 0; k < s.count; ++k) {
            const Capsule& from = s.segment[k].capsule;
            const Vec3& motion = s.segment[k].motion;
            const int pieces = std::max(1, int(std::ceil(length(motion) / 2.f)));
            bool free = true;
            for (int piece = 0; piece < pieces && free; ++piece) {
              const Vec3d d = to_double(motion) / double(pieces);
              const Vec3d p0 = to_double(from.a) + d * double(piece), p1 = to_double(from.b) + d * double(piece);
              const Capsule start{to_float(p0), to_float(p1), float(from.radius + cs.move.skin + 1e-3)};
              const SweptAxis axis = swept_axis(p0, p1, d);
              for (std::size_t tri : grid.near(swept_bounds(start, to_float(d)))) {
                const Triangle& t = triangles[tri];
                const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
                // Proved far, by a micrometre more than the bound's rounding could ever take: skip.
                if (path_distance_lower_bound(axis, v, from.radius + clearance + 1e-6) - from.radius > clearance + 1e-6) {
                  continue;
                }
                if (const double g = path_distance(axis, v) - from.radius; g < clearance) {
                  char text[400];
                  std::snprintf(text, sizeof text,
                                "agent %zu segment %d of %d passes %.6g m from triangle %zu: from (%.9g %.9g %.9g) "
                                "motion (%.9g %.9g %.9g)",
                                i, k, s.count, g, tri, from.a.x, from.a.y, from.a.z, motion.x, motion.y, motion.z);
                  report(text);
                  free = false;
                  break;
                }
              }
            }
            if (!free) ++through;
          }
        }
        // No overlap with another agent.
        others.for_each_overlapping(swept_bounds(c, {}), [&](std::uint32_t j) {
          if (j <= i) return;
          const double gap = oracle::segment_segment(p, q, to_double(ends[j].a), to_double(ends[j].b)).distance;
          if (gap < double(c.radius) + ends[j].radius - tol) ++overlapping;
        });
      }
    });
    if (inside + through + overlapping > 0) {
      first_failure = "tick " + std::to_string(tick) + ":\n" + first_failure;
      break;
    }
  }
  const CrowdTotals& t = crowd.totals();
  EXPECT_EQ(inside.load(), 0u) << first_failure;
  EXPECT_EQ(through.load(), 0u) << first_failure;
  EXPECT_EQ(overlapping.load(), 0u) << first_failure;
  EXPECT_GE(t.agent_ticks, 1'000'000u);
  // The crowd really moved: most agent-ticks were not held in place.
  EXPECT_GT(segments.load(), t.agent_ticks / 2);
  std::printf("%s %s: %llu agent-moves, %zu segments checked, %llu steps up, %llu held, %llu falling, %llu "
              "wedged, %llu respawned (%llu through holes, %llu through cracks), %.3f m pushed\n",
              scene.c_str(), speed.name, (unsigned long long)t.agent_ticks, segments.load(),
              (unsigned long long)t.stepped, (unsigned long long)t.held, (unsigned long long)t.falling,
              (unsigned long long)t.wedged, (unsigned long long)t.respawned, (unsigned long long)t.fell_through_holes,
              (unsigned long long)t.fell_through_cracks, t.pushed);
}

void check_crowd(const std::string& scene, const Speed& speed) {
  const std::vector<Triangle> triangles = scenes::load(scene);
  check_crowd(World(triangles), triangles, scene, speed);
}

class MoveInvariants : public ::testing::TestWithParam<std::string> {};

TEST_P(MoveInvariants, AtWalkingSpeed) {
  check_crowd(GetParam(), {"walking", 1.5f, Steering::goals, 2000, 500});
}

TEST_P(MoveInvariants, At100MetresPerTick) {
  check_crowd(GetParam(), {"100 m/tick", 6000.f, Steering::directions, 100, 10000});
}

TEST_P(MoveInvariants, EllipsoidsAtWalkingSpeed) {
  check_crowd(GetParam(), {"ellipsoids walking", 1.5f, Steering::goals, 2000, 500, AgentShape::ellipsoid});
}

TEST_P(MoveInvariants, EllipsoidsAt100MetresPerTick) {
  check_crowd(GetParam(), {"ellipsoids 100 m/tick", 6000.f, Steering::directions, 100, 10000, AgentShape::ellipsoid});
}

INSTANTIATE_TEST_SUITE_P(Scenes, MoveInvariants, ::testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

// A heightfield (hills, a plateau, a ramp, a cliff, a bowl, holes) with houses and a staircase on
// it: the same invariants, the oracle reading the terrain as its mesh.
void check_terrain_crowd(const Speed& speed) {
  const Heightfield terrain = terrains::generate({.columns = 97, .rows = 81, .cell = 0.8f, .holes = true, .seed = 17});
  const std::vector<Triangle> buildings = terrains::buildings_on(terrain, 18);
  check_crowd(World(terrain, buildings), terrains::mesh_twin(terrain, buildings).triangles, "heightfield + buildings", speed);
}

TEST(TerrainMoveInvariants, AtWalkingSpeed) { check_terrain_crowd({"walking", 1.5f, Steering::goals, 2000, 500}); }

TEST(TerrainMoveInvariants, At100MetresPerTick) {
  check_terrain_crowd({"100 m/tick", 6000.f, Steering::directions, 100, 10000});
}

TEST(TerrainMoveInvariants, EllipsoidsAtWalkingSpeed) {
  check_terrain_crowd({"ellipsoids walking", 1.5f, Steering::goals, 2000, 500, AgentShape::ellipsoid});
}

}  // namespace
