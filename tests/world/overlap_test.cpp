// Static overlaps: is_clear, deepest_overlap and overlap for capsules, deepest_ellipsoid_overlap
// and ellipsoid_clear for ellipsoids (the depenetration and the checks of every agent-tick). The
// world runs the sweeps' float rejection stage in front of the exact contacts
// (broadphase/contacts_near.h), which may drop only triangles beyond the reach; held here to the
// contacts of every triangle near the shape, computed one by one, on every scene and on worlds
// far from the origin, for shapes placed just inside and just beyond the reach of a vertex, an
// edge or a face.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <capsweep/sweep.h>
#include <capsweep/world.h>

#include "world/world_arrays.h"
#include "world/solver_queries.h"
#include "core/ellipsoid_contact.h"
#include "core/random.h"
#include "tests/support/batches.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tests/support/triangle_grid.h"

namespace {

using namespace capsweep;

// What a static capsule query must answer, from every triangle whose box comes near the capsule's
// (the grid's candidates; a triangle beyond them lies farther than the reach).
struct Expected {
  bool clear = true;
  bool overlapping = false;
  Contact deepest;
  std::uint32_t triangle = kNoTriangle;
  float nearest = INFINITY;  // the least contact distance met: how close the case came to its reach
};

Aabb padded_box(const Vec3& a, const Vec3& b, double reach) {
  const double largest = std::max(max_abs_component(a), max_abs_component(b));
  const float pad = float(reach + 1e-3 + 1e-5 * largest);
  return {min(a, b) - Vec3{pad, pad, pad}, max(a, b) + Vec3{pad, pad, pad}};
}

Expected by_every_triangle(const std::vector<Triangle>& triangles, const oracle::TriangleGrid& grid, const Capsule& c,
                           float clearance) {
  const float reach = c.radius + clearance;
  Expected x;
  for (std::size_t i : grid.near(padded_box(c.a, c.b, reach))) {
    Contact k;
    capsule_triangle_contact(c, triangles[i], k);
    x.nearest = std::min(x.nearest, k.distance);
    x.clear = x.clear && !(k.distance <= reach);
    // The deepest overlap: below the radius, the largest push-out, then the lower index.
    if (k.distance < c.radius && (!x.overlapping || k.depth > x.deepest.depth ||
                                  (k.depth == x.deepest.depth && i < x.triangle))) {
      x.overlapping = true;
      x.deepest = k;
      x.triangle = std::uint32_t(i);
    }
  }
  return x;
}

struct ExpectedEllipsoid {
  bool clear = true;
  bool overlapping = false;
  EllipsoidContact deepest;
  std::uint32_t triangle = kNoTriangle;
};

ExpectedEllipsoid by_every_triangle(const std::vector<Triangle>& triangles, const oracle::TriangleGrid& grid,
                                    const Ellipsoid& e) {
  ExpectedEllipsoid x;
  const float r = std::max({e.radii.x, e.radii.y, e.radii.z});
  for (std::size_t i : grid.near(padded_box(e.centre, e.centre, r))) {
    EllipsoidContact k;
    ellipsoid_triangle_contact(e, triangles[i], k);
    x.clear = x.clear && k.distance > 1.0;
    if (k.overlapping && (!x.overlapping || k.depth > x.deepest.depth || (k.depth == x.deepest.depth && i < x.triangle))) {
      x.overlapping = true;
      x.deepest = k;
      x.triangle = std::uint32_t(i);
    }
  }
  return x;
}

bool same(const EllipsoidContact& x, const EllipsoidContact& y) {
  auto bits = [](const auto& a, const auto& b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  return bits(x.distance, y.distance) && x.overlapping == y.overlapping && bits(x.depth, y.depth) &&
         bits(x.normal, y.normal) && bits(x.point, y.point) && x.feature == y.feature;
}

// A point of a random triangle (a vertex, a point on an edge or inside the face) and a direction
// u from it such that the point is the triangle's nearest to everything on u's side of the plane
// through it perpendicular to u: the normal (either side), or for an edge a turn of it out over
// the edge. A degenerate triangle takes any direction.
struct Placement {
  Vec3d p, u;
};

Placement place_on(const Triangle& t, Random& rng) {
  const int turn = int(rng.below(3));
  const Vec3d v[3] = {to_double(t.v[turn]), to_double(t.v[(turn + 1) % 3]), to_double(t.v[(turn + 2) % 3])};
  Vec3d n = cross(v[1] - v[0], v[2] - v[0]);
  const double len = length(n);
  n = len > 0 ? n / len * (rng.chance(0.5) ? 1.0 : -1.0) : rng.unit_vector();
  switch (rng.below(3)) {
    case 0: return {v[0], n};
    case 1: {
      const double s = rng.uniform();
      const Vec3d edge = v[1] - v[0];
      Vec3d out = cross(edge, n);  // in the plane, perpendicular to the edge
      if (dot(out, v[2] - v[0]) > 0) out = -out;
      const double out_len = length(out);
      const double angle = rng.uniform(0, 1.5707963267948966);
      const Vec3d u = out_len > 0 && len > 0 ? n * std::cos(angle) + out / out_len * std::sin(angle) : n;
      return {v[0] + edge * s, u};
    }
    default: {
      double w[3] = {rng.uniform(0.05, 1), rng.uniform(0.05, 1), rng.uniform(0.05, 1)};
      const double sum = w[0] + w[1] + w[2];
      return {(v[0] * w[0] + v[1] * w[1] + v[2] * w[2]) / sum, n};
    }
  }
}

// Gaps beyond (positive) or inside the reach: at the reach itself, within float rounding of it,
// and far enough to be clearly either.
double gap(Random& rng) {
  static const double gaps[] = {0, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 0.05};
  const double size = gaps[rng.below(std::size(gaps))];  // then the sign: one order on every compiler
  return size * (rng.chance(0.5) ? 1.0 : -1.0);
}

// Capsules whose end `a` lies `reach + gap` from a point of a triangle, the axis turned away from
// that point (so `a` is its closest point there): upright people, thin and fat capsules, spheres
// and segments.
std::vector<Capsule> grazing_capsules(const std::vector<Triangle>& triangles, std::size_t count, float clearance,
                                      std::uint64_t seed) {
  Random rng(seed);
  std::vector<Capsule> out;
  const float radii[] = {0.35f, 0.35f, 0.01f, 1.5f, 0.f};
  const double lengths[] = {1.1, 1.1, 0.0, 0.3, 4.0};
  while (out.size() < count) {
    const Triangle& t = triangles[rng.below(triangles.size())];
    const int shape = int(rng.below(std::size(radii)));
    const float r = radii[shape];
    const Placement at = place_on(t, rng);
    const Vec3d a = at.p + at.u * std::max(0.0, double(r) + double(clearance) + gap(rng));
    const Vec3d& u = at.u;
    Vec3d w = shape < 2 ? Vec3d{0, 1, 0} : rng.unit_vector();
    if (dot(w, u) < 0) w = -w;
    out.push_back({to_float(a), to_float(a + w * lengths[shape]), r});
  }
  return out;
}

// Ellipsoids on u's side of a placement, touching its point (where their outward normal is -u),
// then moved out along u by the gap (or in).
std::vector<Ellipsoid> grazing_ellipsoids(const std::vector<Triangle>& triangles, std::size_t count, std::uint64_t seed) {
  Random rng(seed);
  std::vector<Ellipsoid> out;
  while (out.size() < count) {
    const Triangle& t = triangles[rng.below(triangles.size())];
    const Vec3d radii = rng.chance(0.5) ? Vec3d{0.35, 0.9, 0.35}
                                        : Vec3d{rng.log_uniform(0.02, 2), rng.log_uniform(0.02, 2), rng.log_uniform(0.02, 2)};
    const Placement at = place_on(t, rng);
    // The surface point whose outward normal is -u lies at centre - R^2 u / |R u| (R the radii).
    const Vec3d& u = at.u;
    const Vec3d ru{radii.x * u.x, radii.y * u.y, radii.z * u.z};
    const Vec3d rru{radii.x * ru.x, radii.y * ru.y, radii.z * ru.z};
    const Vec3d centre = at.p + u * gap(rng) + rru / length(ru);
    out.push_back({to_float(centre), to_float(radii)});
  }
  return out;
}

std::vector<Triangle> shifted(std::vector<Triangle> triangles, const Vec3& by) {
  for (Triangle& t : triangles) {
    for (Vec3& v : t.v) v = v + by;
  }
  return triangles;
}

void expect_every_triangles_answers(const std::vector<Triangle>& triangles, std::uint64_t seed) {
  const World world(triangles);
  const oracle::TriangleGrid grid(triangles);
  std::size_t near_reach = 0, clear = 0, overlapping = 0, cases = 0, refused = 0;
  for (float clearance : {0.f, 0.01f, 0.3f}) {
    std::vector<Capsule> capsules = grazing_capsules(triangles, 1500, clearance, seed + std::uint64_t(clearance * 1000));
    const std::vector<Capsule> people = batches::make(world, 300, seed).capsules;
    capsules.insert(capsules.end(), people.begin(), people.end());
    std::vector<OverlapResult> batch(capsules.size());
    std::vector<Status> status(capsules.size());
    world.overlap(capsules, clearance, batch, {}, status);
    for (std::size_t i = 0; i < capsules.size(); ++i) {
      const Capsule& c = capsules[i];
      if (check_capsule(c) != Status::ok) {
        // Segments (radius 0) are refused: neither clear nor overlapping, whatever lies near.
        Contact k;
        std::uint32_t t = kNoTriangle;
        ASSERT_EQ(status[i], check_capsule(c));
        ASSERT_FALSE(batch[i].clear || batch[i].overlapping);
        ASSERT_FALSE(world.is_clear(c, clearance));
        ASSERT_FALSE(world.deepest_overlap(c, k, t));
        ++refused;
        continue;
      }
      const Expected x = by_every_triangle(triangles, grid, c, clearance);
      SCOPED_TRACE("capsule " + std::to_string(i) + ", clearance " + std::to_string(clearance));
      ASSERT_EQ(world.is_clear(c, clearance), x.clear) << "nearest contact " << x.nearest;
      Contact k;
      std::uint32_t t = kNoTriangle;
      ASSERT_EQ(world.deepest_overlap(c, k, t), x.overlapping);
      ASSERT_EQ(batch[i].clear, x.clear);
      ASSERT_EQ(batch[i].overlapping, x.overlapping);
      if (x.overlapping) {
        ASSERT_EQ(t, x.triangle);
        ASSERT_TRUE(answers::same(k, x.deepest));
        ASSERT_EQ(batch[i].triangle, x.triangle);
        ASSERT_TRUE(answers::same(batch[i].deepest, x.deepest));
      }
      const float reach = c.radius + clearance;
      near_reach += std::fabs(x.nearest - reach) <= 1e-4f * std::max(1.f, reach);
      clear += x.clear;
      overlapping += x.overlapping;
      ++cases;
    }
  }
  // Both answers, many cases within 0.1 mm of the reach, and refused segments were exercised.
  EXPECT_GT(refused, 500u);
  EXPECT_GT(clear, cases / 10);
  EXPECT_GT(overlapping, cases / 10);
  EXPECT_GT(near_reach, cases / 20);

  std::size_t ellipsoids_clear = 0, ellipsoids_overlapping = 0;
  for (const Ellipsoid& e : grazing_ellipsoids(triangles, 1500, seed + 7)) {
    if (check_ellipsoid_sweep(e, {}) != Status::ok) continue;
    const ExpectedEllipsoid x = by_every_triangle(triangles, grid, e);
    EllipsoidContact k;
    std::uint32_t t = kNoTriangle;
    ASSERT_EQ(ellipsoid_clear(world, e), x.clear);
    ASSERT_EQ(deepest_ellipsoid_overlap(world, e, k, t), x.overlapping);
    if (x.overlapping) {
      ASSERT_EQ(t, x.triangle);
      ASSERT_TRUE(same(k, x.deepest));
    }
    ellipsoids_clear += x.clear;
    ellipsoids_overlapping += x.overlapping;
  }
  EXPECT_GT(ellipsoids_clear, 100u);
  EXPECT_GT(ellipsoids_overlapping, 100u);
}

// A contact whose exact distance lies within half a float step above radius + clearance
// rounds onto it: touching, so not clear (the contact's own float distance decides). Found on
// the 0 A.D. terrain, where a box test in float had dropped such a triangle; here made on
// purpose over flat floors at many heights, radii and clearances.
TEST(Overlaps, ADistanceThatRoundsOntoTheReachTouches) {
  Random rng(5);
  std::size_t onto = 0;
  for (int n = 0; n < 3000; ++n) {
    const float r = float(rng.log_uniform(0.01, 2));
    const float clearance = rng.chance(0.3) ? 0.f : float(rng.log_uniform(1e-3, 1));
    const float reach = r + clearance;
    // Mostly a floor just below the origin, where the heights' floats are finer than the
    // reach's and a distance can land within half its float step; sometimes far off.
    const float floor = rng.chance(0.7) ? -reach * float(rng.uniform(0.2, 0.9)) : float(rng.uniform(-50, 50));
    const float x = float(rng.uniform(-5, 5)), z = float(rng.uniform(-5, 5));
    const World world({Triangle{{{x - 20, floor, z - 20}, {x + 20, floor, z - 20}, {x, floor, z + 30}}}});
    // The float heights around floor + reach: the first whose exact distance exceeds the reach.
    float y = std::nextafter(floor + reach, -INFINITY);
    for (int step = 0; step < 8 && !(double(y) - double(floor) > double(reach)); ++step) y = std::nextafter(y, INFINITY);
    const Capsule c{{x, y, z}, {x, y + 1.1f, z}, r};
    Contact k;
    capsule_triangle_contact(c, world.triangle(0), k);
    ASSERT_EQ(world.is_clear(c, clearance), !(k.distance <= reach)) << "case " << n << ": distance " << k.distance;
    std::vector<OverlapResult> batch(1);
    world.overlap(std::vector<Capsule>{c}, clearance, batch);
    ASSERT_EQ(batch[0].clear, !(k.distance <= reach)) << "case " << n;
    onto += k.distance == reach;
  }
  EXPECT_GT(onto, 300u);  // the exact distance above the reach, its float on it
}

// Refused capsules and clearances get the same answer whatever lies near them.
TEST(Overlaps, RefusedCapsulesAreNeitherClearNorOverlappingAndBadClearancesThrow) {
  const std::vector<Triangle> arena = scenes::load("@arena");
  const World world(arena);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Capsule refused[] = {{{0, 1, 0}, {0, 2, 0}, 0.f},   {{0, 1, 0}, {0, 2, 0}, -0.3f},
                             {{nan, nan, nan}, {nan, nan, nan}, nan}, {{0, nan, 0}, {0, 2, 0}, 0.3f},
                             {{0, 1, 0}, {0, 2e9f, 0}, 0.3f}};
  for (const Capsule& c : refused) {
    ASSERT_NE(check_capsule(c), Status::ok);
    Contact k;
    std::uint32_t t = kNoTriangle;
    EXPECT_FALSE(world.is_clear(c, 0.1f));
    EXPECT_FALSE(world.deepest_overlap(c, k, t));
    EXPECT_EQ(t, kNoTriangle);
  }
  const Capsule person{{0, 1, 0}, {0, 2.1f, 0}, 0.35f};
  for (float bad : {-0.1f, std::numeric_limits<float>::infinity(), nan}) {
    EXPECT_THROW((void)world.is_clear(person, bad), std::invalid_argument);
  }
}

class SceneOverlaps : public testing::TestWithParam<std::string> {};

TEST_P(SceneOverlaps, AnswerAsTheContactsOfEveryTriangleNearby) {
  expect_every_triangles_answers(scenes::load(GetParam()), 11);
}

INSTANTIATE_TEST_SUITE_P(EveryScene, SceneOverlaps, testing::ValuesIn(scenes::names()),
                         [](const testing::TestParamInfo<std::string>& info) { return scenes::test_name(info.param); });

// Far from the origin floats are coarse (6 cm apart 900 km out), and the float stage's margin
// grows with the coordinates; the answers still match the contacts one by one.
TEST(Overlaps, FarFromTheOriginAnswerAsTheContactsOfEveryTriangleNearby) {
  const std::vector<Triangle> arena = scenes::load("@arena");
  expect_every_triangles_answers(shifted(arena, {3000.f, -200.f, 3000.f}), 12);
  expect_every_triangles_answers(shifted(arena, {900000.f, 50.f, -900000.f}), 13);
}

}  // namespace
