// Agent bodies (core/body.h) and the ellipsoid's discrete contact (core/ellipsoid_contact.h):
// the skin of an ellipsoid holds every point within the skin of it (the claim the solver relies
// on), the tempting alternative does not, and the eSpace contact and push-out agree with the
// oracle's own eSpace distance on random and adversarial cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/body.h"
#include "core/ellipsoid_contact.h"
#include "core/random.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

Vec3d divide(const Vec3d& v, const Vec3d& by) { return {v.x / by.x, v.y / by.y, v.z / by.z}; }
Vec3d multiply(const Vec3d& v, const Vec3d& by) { return {v.x * by.x, v.y * by.y, v.z * by.z}; }

// sum(((p - centre) / radii)^2): <= 1 inside the ellipsoid.
double level(const Ellipsoid& e, const Vec3d& p) {
  const Vec3d q = divide(p - to_double(e.centre), to_double(e.radii));
  return dot(q, q);
}

Ellipsoid random_ellipsoid(Random& rng) {
  // Round, flat (one radius 10-100x smaller), long and everything between, 1 cm to 5 m.
  Vec3d r{rng.log_uniform(0.01, 5), rng.log_uniform(0.01, 5), rng.log_uniform(0.01, 5)};
  if (rng.chance(0.2)) r.y = std::min({r.x, r.z}) / rng.uniform(10, 100);
  if (rng.chance(0.1)) r = {r.x, r.x, r.x};
  return {to_float(rng.in_cube(100)), to_float(r)};
}

// A point of the ellipsoid's surface and its outward unit normal there.
void surface_point(const Ellipsoid& e, Random& rng, Vec3d& point, Vec3d& normal) {
  const Vec3d u = rng.unit_vector(), r = to_double(e.radii);
  point = to_double(e.centre) + multiply(u, r);
  normal = divide(u, r);
  normal = normal / length(normal);
}

TEST(Body, TheEllipsoidScaledOutByTheSkinHoldsEveryPointWithinTheSkin) {
  Random rng(41);
  double tightest = INFINITY;
  for (int i = 0; i < 200'000; ++i) {
    const Ellipsoid e = random_ellipsoid(rng);
    const float skin = float(rng.log_uniform(1e-3, 0.5));
    const Ellipsoid grown = scaled_out(e, skin);
    // The farthest points within `skin` of the ellipsoid lie `skin` out along its normals.
    Vec3d p, n;
    surface_point(e, rng, p, n);
    const double l = level(grown, p + n * double(skin));
    ASSERT_LE(l, 1.0 + 1e-9) << "radii " << e.radii.x << " " << e.radii.y << " " << e.radii.z << ", skin " << skin;
    tightest = std::min(tightest, 1.0 - l);
    // ... and the skin reaches no farther than skin_reach beyond it in any direction: the support
    // functions differ by (k - 1) |r u|.
    const Vec3d u = rng.unit_vector();
    const double support = length(multiply(u, to_double(e.radii))), support_grown = length(multiply(u, to_double(grown.radii)));
    ASSERT_LE(support_grown - support, double(skin_reach(Body::of(e), skin)) * (1 + 1e-6));
    ASSERT_GE(support_grown - support, double(skin) * (1 - 1e-6));
  }
  // Along the shortest axis the skin is exactly the skin: no looser than it must be.
  EXPECT_LT(tightest, 1e-3);
}

TEST(Body, GrowingEveryRadiusByTheSkinWouldNotHoldThePointsWithinTheSkin) {
  // The tempting skin of an ellipsoid, each radius plus the skin, misses points within the skin
  // between the axes of a flat ellipsoid: |(r + s) u| < |r u| + s unless u is along an axis.
  const Ellipsoid flat{{0, 0, 0}, {1.f, 0.1f, 1.f}};
  const float skin = 0.1f;
  const Ellipsoid naive{flat.centre, {1.1f, 0.2f, 1.1f}};
  Random rng(43);
  double worst = 0;
  for (int i = 0; i < 10'000; ++i) {
    Vec3d p, n;
    surface_point(flat, rng, p, n);
    worst = std::max(worst, level(naive, p + n * double(skin)));
  }
  EXPECT_GT(worst, 1.05) << "the naive skin would have held them";
}

TEST(Body, PositionsFeetAndCapsulesOfBothShapes) {
  const Body c = Body::of(Capsule{{1, 0.37f, 2}, {1, 1.47f, 2}, 0.35f});
  const Body e = Body::of(Ellipsoid{{1, 0.92f, 2}, {0.35f, 0.9f, 0.35f}});
  EXPECT_EQ(position(c), (Vec3{1, 0.37f, 2}));
  EXPECT_EQ(position(e), (Vec3{1, 0.92f, 2}));
  EXPECT_NEAR(bottom(c), 0.02f, 1e-6f);
  EXPECT_NEAR(bottom(e), 0.02f, 1e-6f);
  EXPECT_EQ(side_radius(e), 0.35f);
  // The person as an ellipsoid meets other agents as the person's capsule.
  const Capsule held = agent_capsule(e);
  EXPECT_NEAR(held.a.y, 0.37f, 1e-6f);
  EXPECT_NEAR(held.b.y, 1.47f, 1e-6f);
  EXPECT_GE(held.radius, 0.35f);
  EXPECT_EQ(skin_reach(c, 0.01f), 0.01f);
  EXPECT_NEAR(skin_reach(e, 0.01f), 0.01f * 0.9f / 0.35f, 2e-7f);
  EXPECT_EQ(with_skin(c, 0.01f).capsule.radius, 0.35f + 0.01f);
  EXPECT_TRUE(under_body(e, {}, {1.3f, 0, 2}, 0.81f));
  EXPECT_FALSE(under_body(e, {}, {1.33f, 0, 2}, 0.81f));
  EXPECT_TRUE(under_body(e, {0.1f, 0, 0}, {1.4f, 0, 2}, 0.81f));
}

// A triangle near the ellipsoid, often in contact: random, through its centre, grazing at an edge
// or a vertex, degenerate.
Triangle triangle_near(const Ellipsoid& e, Random& rng) {
  const Vec3d c = to_double(e.centre), r = to_double(e.radii);
  const double size = std::max({r.x, r.y, r.z}) * rng.log_uniform(0.05, 20);
  Vec3d anchor;  // a point of the triangle, at eSpace distance about `gap` from the centre
  const double gap = rng.chance(0.2) ? rng.uniform(0.999, 1.001) : rng.uniform(0, 1.5);
  anchor = c + multiply(rng.unit_vector() * gap, r);
  Triangle t;
  const Vec3d a = rng.unit_vector(), b = rng.unit_vector();
  switch (rng.below(4)) {
    case 0:  // the anchor is a vertex
      t = {{to_float(anchor), to_float(anchor + a * size), to_float(anchor + b * size)}};
      break;
    case 1:  // the anchor lies on an edge
      t = {{to_float(anchor - a * size), to_float(anchor + a * size), to_float(anchor + b * size)}};
      break;
    case 2:  // the anchor lies inside the face
      t = {{to_float(anchor - a * size), to_float(anchor + a * size + b * size), to_float(anchor + b * -size)}};
      break;
    default:  // a segment or a point
      t = {{to_float(anchor), to_float(anchor + a * size * double(rng.below(2))), to_float(anchor)}};
  }
  return t;
}

TEST(EllipsoidContact, AgreesWithTheOraclesESpaceDistanceAndPushesOutExactly) {
  Random rng(47);
  int overlapping = 0, checked = 0;
  for (int i = 0; i < 300'000; ++i) {
    const Ellipsoid e = random_ellipsoid(rng);
    const Triangle t = triangle_near(e, rng);
    EllipsoidContact k;
    ellipsoid_triangle_contact(e, t, k);
    const Vec3d c = to_double(e.centre), r = to_double(e.radii);
    Vec3d v[3];
    for (int j = 0; j < 3; ++j) v[j] = divide(to_double(t.v[j]) - c, r);
    const oracle::Gap g = oracle::point_triangle({}, v);
    // Float vertices a hundred metres out, divided by radii down to 1 mm: relative error ~1e-7
    // of the coordinates in eSpace.
    const double r_min = std::min({r.x, r.y, r.z});
    const double eps = 1e-6 * (1 + (length(c) + 10 * std::max({r.x, r.y, r.z})) / r_min) * 1e-1;
    ASSERT_NEAR(k.distance, g.distance, eps + 1e-9 * g.distance) << i;
    if (std::fabs(g.distance - 1) > eps) {
      ASSERT_EQ(k.overlapping, g.distance < 1) << i;
    }
    // The point lies on the triangle, in world space.
    Vec3d tw[3];
    for (int j = 0; j < 3; ++j) tw[j] = to_double(t.v[j]);
    ASSERT_LE(oracle::point_triangle(to_double(k.point), tw).distance, 1e-6 * (1 + length(c) + 10 * r_min * g.distance))
        << i;
    ASSERT_NEAR(length(to_double(k.normal)), 1.0, 1e-6);
    if (!k.overlapping) {
      ASSERT_EQ(k.depth, 0.f);
      continue;
    }
    ++overlapping;
    // The normal is the world normal of the plane that separates them: the eSpace direction from
    // the triangle to the centre, through the inverse transpose (away from the contact, where
    // that direction is defined).
    const Vec3d n = to_double(k.normal);
    if (g.distance > 0.05) {
      Vec3d expect = divide(g.w / g.distance, r);
      expect = expect / length(expect);
      ASSERT_LE(length(n - expect), 1e-5 * (1 + eps / g.distance)) << i;
    }
    // Pushed by depth along the normal, the ellipsoid clears the triangle (eSpace distance >= 1,
    // within the float rounding of the push) and just touches that plane through the contact
    // point: its support along -normal, |radii * normal|, ends on it. No shorter push along the
    // normal clears the plane.
    const Vec3d moved = c + n * double(k.depth);
    for (int j = 0; j < 3; ++j) v[j] = divide(to_double(t.v[j]) - moved, r);
    const oracle::Gap after = oracle::point_triangle({}, v);
    const double slack = 1e-6 * (1 + double(k.depth) / r_min) + eps;
    ASSERT_GE(after.distance, 1 - slack) << i << ": the push leaves an overlap";
    const double support = length(multiply(n, r));
    ASSERT_NEAR(dot(moved - to_double(k.point), n), support, slack * r_min + 1e-6 * support) << i;
    ++checked;
  }
  EXPECT_GT(overlapping, 50'000);
  EXPECT_EQ(checked, overlapping);
}

}  // namespace
