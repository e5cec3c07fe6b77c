// Discrete queries: distance, overlap, and that the push-out is both sufficient and minimal.
#include <capsweep/sweep.h>

#include <gtest/gtest.h>

#include "core/random.h"
#include "tests/support/cases.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

// How far the capsule must move along u to leave the obstacle's reach (by bisection on the
// oracle distance: along a ray from inside a convex set, once out is out for good).
double exit_distance(const oracle::Obstacle& obstacle, const Capsule& c, double radius, const Vec3d& u) {
  const Vec3d a = to_double(c.a), b = to_double(c.b);
  double lo = 0, hi = 4 * radius + 1;
  while (obstacle(a + u * hi, b + u * hi).distance <= radius) hi *= 2;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (obstacle(a + u * mid, b + u * mid).distance <= radius ? lo : hi) = mid;
  }
  return hi;
}

void check_push_out(const Contact& k, const oracle::Obstacle& obstacle, const Capsule& c, double radius,
                    Random& rng, double tol, const std::string& what) {
  ASSERT_TRUE(k.overlapping) << what;
  const Vec3d n = to_double(k.normal);
  ASSERT_NEAR(length(n), 1.0, 1e-6) << what;
  const Vec3d push = n * double(k.depth);
  const Vec3d a = to_double(c.a), b = to_double(c.b);
  // Sufficient: pushed out by depth it just touches.
  EXPECT_NEAR(obstacle(a + push, b + push).distance, radius, tol) << what;
  // Minimal: no direction separates with a shorter push.
  for (int i = 0; i < 24; ++i) {
    const Vec3d u = rng.unit_vector();
    EXPECT_GE(exit_distance(obstacle, c, radius, u), k.depth - tol) << what << " direction " << i;
  }
}

TEST(Contact, CapsuleTrianglePushOutIsSufficientAndMinimal) {
  Random rng(11);
  int overlapping = 0, crossing = 0;
  for (int i = 0; i < 20000; ++i) {
    const cases::SweepCase sc = cases::make(rng, cases::Kind::start_contact);
    Contact k;
    ASSERT_EQ(capsule_triangle_contact(sc.capsule, sc.triangle, k), Status::ok);
    const auto obstacle = oracle::triangle_obstacle(sc.triangle);
    const oracle::Gap g = obstacle(to_double(sc.capsule.a), to_double(sc.capsule.b));
    const double tol = oracle::tolerance(cases::largest_coordinate(sc));
    ASSERT_NEAR(k.distance, g.distance, tol) << "case " << i;
    if (g.distance > sc.capsule.radius + tol) {
      EXPECT_FALSE(k.overlapping) << "case " << i;
    }
    if (g.distance < sc.capsule.radius - tol) {
      EXPECT_TRUE(k.overlapping) << "case " << i;
    }
    if (!k.overlapping || g.distance > sc.capsule.radius - tol) continue;
    ++overlapping;
    const bool through = g.distance == 0;  // the axis crosses the triangle
    crossing += through;
    if (i % 10 == 0 || through) check_push_out(k, obstacle, sc.capsule, sc.capsule.radius, rng, tol, "case " + std::to_string(i));
  }
  EXPECT_GT(overlapping, 5000);
  EXPECT_GT(crossing, 1000);
}

TEST(Contact, AxisThroughFaceIsPushedOutThroughTheNearestPrismFacet) {
  // A vertical capsule piercing a floor triangle near its top end: out upwards by r plus the
  // height of the lower endpoint below the floor.
  const Triangle floor{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 0}}};
  const Capsule c{{0, -0.2f, 0}, {0, 1.0f, 0}, 0.3f};
  Contact k;
  ASSERT_EQ(capsule_triangle_contact(c, floor, k), Status::ok);
  EXPECT_TRUE(k.overlapping);
  EXPECT_NEAR(k.depth, 0.5f, 1e-6f);
  EXPECT_NEAR(k.normal.y, 1.0f, 1e-6f);
  EXPECT_EQ(k.feature, Feature::face);
}

TEST(Contact, CapsuleLyingInTheFacePlaneIsPushedOutAlongTheFrontNormal) {
  const Triangle floor{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 0}}};
  const Capsule c{{-1, 0, 0}, {1, 0, 0}, 0.25f};
  Contact k;
  ASSERT_EQ(capsule_triangle_contact(c, floor, k), Status::ok);
  EXPECT_NEAR(k.depth, 0.25f, 1e-6f);
  EXPECT_NEAR(k.normal.y, 1.0f, 1e-6f);
}

TEST(Contact, CapsuleCapsuleDistanceAndPushOut) {
  Random rng(12);
  int overlapping = 0;
  for (int i = 0; i < 20000; ++i) {
    const Vec3d center = rng.in_cube(i % 3 == 0 ? 3000 : 5);
    const double len_a = rng.chance(0.2) ? 0 : rng.log_uniform(0.01, 3), len_b = rng.chance(0.2) ? 0 : rng.log_uniform(0.01, 3);
    const Vec3d da = rng.unit_vector(), db = rng.chance(0.2) ? da : rng.unit_vector();  // parallel axes too
    const Capsule a{to_float(center - da * (len_a / 2)), to_float(center + da * (len_a / 2)), float(rng.log_uniform(0.01, 2))};
    const Vec3d cb = center + rng.in_cube(1);
    const Capsule b{to_float(cb - db * (len_b / 2)), to_float(cb + db * (len_b / 2)),
                    rng.chance(0.1) ? 0.f : float(rng.log_uniform(0.01, 2))};
    Contact k;
    ASSERT_EQ(capsule_capsule_contact(a, b, k), Status::ok);
    const auto obstacle = oracle::segment_obstacle(b.a, b.b);
    const double radius = double(a.radius) + double(b.radius);
    const double tol = oracle::tolerance(max_abs_component(center) + 5);
    ASSERT_NEAR(k.distance, obstacle(to_double(a.a), to_double(a.b)).distance, tol) << "case " << i;
    if (!k.overlapping) continue;
    ++overlapping;
    // The reported point is on the obstacle's surface.
    EXPECT_NEAR(oracle::segment_segment(to_double(k.point), to_double(k.point), to_double(b.a), to_double(b.b)).distance,
                b.radius, tol);
    if (i % 10 == 0) check_push_out(k, obstacle, a, radius, rng, tol, "case " + std::to_string(i));
  }
  EXPECT_GT(overlapping, 3000);
}

TEST(Contact, CrossingCapsuleAxesArePushedApartAlongTheCommonPerpendicular) {
  const Capsule a{{-1, 0, 0}, {1, 0, 0}, 0.5f};
  const Capsule b{{0, 0, -1}, {0, 0, 1}, 0.25f};
  Contact k;
  ASSERT_EQ(capsule_capsule_contact(a, b, k), Status::ok);
  EXPECT_NEAR(k.depth, 0.75f, 1e-6f);
  EXPECT_NEAR(std::fabs(k.normal.y), 1.0f, 1e-6f);
}

}  // namespace
