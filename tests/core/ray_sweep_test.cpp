// Rays (a = b, radius 0) and moving segments (radius 0): known answers, the checks that let them
// through where a sweep is asked and keep them out where a solid capsule is needed, and the
// oracle on random and adversarial cases (grazing edges and vertices at gap 0, sliding in a
// face's plane, along an edge, starting on the face).
#include <gtest/gtest.h>
#include "parallel/executor.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include <capsweep/sweep.h>
#include "tests/support/cases.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

// A floor triangle (normal +Y) with an edge on the Z axis, as in the known-answer tests.
const Triangle kFloor{{{0, 0, 0}, {0, 0, 2}, {2, 0, 0}}};

SweepHit sweep(const Capsule& c, const Vec3& d, const Triangle& t = kFloor) {
  SweepHit hit;
  EXPECT_EQ(sweep_capsule_triangle(c, d, t, hit), Status::ok);
  return hit;
}

Capsule ray_at(const Vec3& p) { return {p, p, 0.f}; }

TEST(RaySweep, ARayDownOntoTheFaceStopsAtTheFaceWithItsNormal) {
  const SweepHit h = sweep(ray_at({0.5f, 2, 0.5f}), {0, -4, 0});
  ASSERT_TRUE(h.hit);
  // The ray reaches the face at t = 0.5; the answer is never past it, and no earlier than the
  // ray grown by the tolerance (0.1 mm here) would touch.
  EXPECT_LE(h.t, 0.5f);
  EXPECT_GE(h.t, 0.5f - 1e-4f / 4);
  EXPECT_EQ(h.normal.x, 0.f);
  EXPECT_EQ(h.normal.y, 1.f);
  EXPECT_EQ(h.normal.z, 0.f);
  EXPECT_EQ(h.feature, Feature::face);
  EXPECT_NEAR(h.point.x, 0.5f, 1e-6f);
  EXPECT_NEAR(h.point.y, 0.f, 1e-6f);
  EXPECT_NEAR(h.point.z, 0.5f, 1e-6f);
  EXPECT_EQ(h.depth, 0.f);
}

TEST(RaySweep, ARayFromBelowGetsTheBackFacesNormal) {
  const SweepHit h = sweep(ray_at({0.5f, -1, 0.5f}), {0, 2, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_EQ(h.normal.y, -1.f);
  EXPECT_EQ(h.feature, Feature::face);
}

TEST(RaySweep, ARayInTheFacesPlaneHitsItsEdgeFacingTheMotion) {
  // Moving along +X in the plane y = 0 toward the edge on the Z axis (x = 0): contact at t = 0.5.
  const SweepHit h = sweep(ray_at({-1, 0, 0.5f}), {2, 0, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_LE(h.t, 0.5f);
  EXPECT_GE(h.t, 0.5f - 1e-4f / 2);
  EXPECT_LT(h.normal.x, -0.99f);  // the edge's normal, against the motion
  EXPECT_EQ(h.feature, Feature::edge);
}

TEST(RaySweep, RaysBesideOrAboveTheTriangleMiss) {
  EXPECT_FALSE(sweep(ray_at({0.5f, 0.01f, 0.5f}), {5, 0, 0}).hit);     // parallel, 1 cm above
  EXPECT_FALSE(sweep(ray_at({-0.01f, 1, 0.5f}), {0, -2, 0}).hit);      // 1 cm outside the edge
  EXPECT_FALSE(sweep(ray_at({0.5f, 2, 0.5f}), {0, -1.9f, 0}).hit);     // stops 10 cm short
  EXPECT_FALSE(sweep(ray_at({0.5f, 2, 0.5f}), {0, 4, 0}).hit);         // moving away
}

TEST(RaySweep, ARayStartingOnTheFaceTouchesAtOnce) {
  const SweepHit h = sweep(ray_at({0.5f, 0, 0.5f}), {1, 0, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_EQ(h.t, 0.f);
  EXPECT_TRUE(h.started_in_contact());
}

TEST(RaySweep, ARayThroughTheSharedEdgeOfTwoTrianglesIsNotLost) {
  // Two floor triangles sharing the diagonal from (0, 0, 0) to (2, 0, 2); the ray comes down
  // exactly on it.
  const Triangle left{{{0, 0, 0}, {0, 0, 2}, {2, 0, 2}}}, right{{{0, 0, 0}, {2, 0, 2}, {2, 0, 0}}};
  const Capsule ray = ray_at({1, 3, 1});
  const SweepHit a = sweep(ray, {0, -6, 0}, left), b = sweep(ray, {0, -6, 0}, right);
  ASSERT_TRUE(a.hit);
  ASSERT_TRUE(b.hit);
  EXPECT_LE(std::min(a.t, b.t), 0.5f);
  EXPECT_GT(a.normal.y, 0.99f);
  EXPECT_GT(b.normal.y, 0.99f);
}

TEST(RaySweep, AMovingSegmentSweepsItsWholeLength) {
  // A horizontal segment across x = -1..3 moving down: its ends pass outside the triangle, its
  // middle meets the face.
  const SweepHit h = sweep({{-1, 1, 0.5f}, {3, 1, 0.5f}, 0.f}, {0, -2, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_LE(h.t, 0.5f);
  EXPECT_GE(h.t, 0.5f - 1e-4f / 2);
  EXPECT_GT(h.normal.y, 0.99f);
  EXPECT_NE(h.feature, Feature::none);
}

TEST(RaySweep, TheThinCapsuleIsHalfTheToleranceAtTheQuery) {
  EXPECT_FLOAT_EQ(ray_radius(ray_at({1, 2, 3}), {1, 0, 0}), 5e-5f);
  EXPECT_FLOAT_EQ(ray_radius(ray_at({1000, 2, 3}), {-2000, 0, 0}), float(4e-7 * 1000 / 2));
  EXPECT_FLOAT_EQ(ray_radius(ray_at({1000, 2, 3}), {1000, 0, 0}), float(4e-7 * 2000 / 2));
  EXPECT_EQ(swept_capsule({{0, 0, 0}, {0, 1, 0}, 0.3f}, {1, 0, 0}).radius, 0.3f);
  EXPECT_EQ(swept_capsule(ray_at({0, 0, 0}), {1, 0, 0}).radius, 5e-5f);
}

TEST(RaySweep, ZeroRadiusIsASweepOnlyNegativeIsNever) {
  EXPECT_EQ(check_sweep(ray_at({0, 0, 0}), {1, 0, 0}), Status::ok);
  EXPECT_EQ(check_sweep({{0, 0, 0}, {0, 0, 0}, -0.f}, {1, 0, 0}), Status::ok);
  EXPECT_EQ(check_sweep({{0, 0, 0}, {0, 0, 0}, -1e-9f}, {1, 0, 0}), Status::bad_radius);
  EXPECT_EQ(check_agent_move(ray_at({0, 0, 0}), {1, 0, 0}), Status::bad_radius);
  EXPECT_EQ(check_capsule(ray_at({0, 0, 0})), Status::bad_radius);
  Contact k;
  EXPECT_EQ(capsule_triangle_contact(ray_at({0, 0, 0}), kFloor, k), Status::bad_radius);
  SweepHit h;
  EXPECT_EQ(sweep_capsule_triangle({{0, 0, 0}, {0, 0, 0}, -1.f}, {1, 0, 0}, kFloor, h), Status::bad_radius);
  EXPECT_FALSE(h.hit);
}

// The ray against a capsule obstacle, and two segments (both of radius 0).
TEST(RaySweep, ARayAgainstACapsuleAndASegmentAgainstASegment) {
  SweepHit h;
  ASSERT_EQ(sweep_capsule_capsule(ray_at({-2, 0.5f, 0}), {4, 0, 0}, {{0, 0, 0}, {0, 1, 0}, 0.5f}, h), Status::ok);
  ASSERT_TRUE(h.hit);
  EXPECT_LE(h.t, 0.375f);
  EXPECT_GE(h.t, 0.375f - 1e-4f / 4);
  EXPECT_LT(h.normal.x, -0.99f);
  ASSERT_EQ(sweep_capsule_segment({{-2, 0, -1}, {-2, 0, 1}, 0.f}, {4, 0, 0}, {0, -1, 0}, {0, 1, 0}, h), Status::ok);
  ASSERT_TRUE(h.hit);
  EXPECT_LE(h.t, 0.5f);
  EXPECT_GE(h.t, 0.5f - 1e-4f / 4);
}

struct Tally {
  std::atomic<std::uint64_t> failures{0}, hits{0}, starts{0};
  std::mutex mutex;
  std::vector<std::string> reports;
};

void judge_cases(cases::Mover mover, std::uint64_t total, std::uint64_t seed, Tally& tally,
                 std::vector<std::atomic<std::uint64_t>>& per_kind_hits) {
  constexpr int kinds = int(cases::Kind::count);
  parallel::for_ranges<std::uint64_t>(0, total, 4096, [&](const auto& range) {
    for (std::uint64_t i = range.begin(); i != range.end(); ++i) {
      Random rng(seed * 1000003ull + i);
      const auto kind = cases::Kind(i % kinds);
      const cases::SweepCase c = cases::make(rng, kind, mover);
      ASSERT_EQ(c.capsule.radius, 0.f);
      SweepHit hit;
      ASSERT_EQ(sweep_capsule_triangle(c.capsule, c.motion, c.triangle, hit), Status::ok);
      if (hit.hit) {
        ++tally.hits;
        ++per_kind_hits[int(kind)];
      }
      if (hit.started_in_contact()) ++tally.starts;
      const double tol = oracle::tolerance(cases::largest_coordinate(c));
      const std::string why = oracle::judge(hit, c.capsule, c.motion, 0.0, oracle::triangle_obstacle(c.triangle), tol);
      if (!why.empty()) {
        ++tally.failures;
        std::lock_guard lock(tally.mutex);
        if (tally.reports.size() < 12) {
          tally.reports.push_back(std::string(cases::name(kind)) + " case " + std::to_string(i) + ": " + why);
        }
      }
    }
  });
}

TEST(RaySweep, RandomAndAdversarialRaysAndSegmentsAreExact) {
  constexpr std::uint64_t total = 300'000;
  constexpr int kinds = int(cases::Kind::count);
  for (cases::Mover mover : {cases::Mover::ray, cases::Mover::segment}) {
    SCOPED_TRACE(mover == cases::Mover::ray ? "rays" : "segments");
    Tally tally;
    std::vector<std::atomic<std::uint64_t>> per_kind_hits(kinds);
    judge_cases(mover, total, mover == cases::Mover::ray ? 0x5A7ull : 0x5E6ull, tally, per_kind_hits);
    for (const auto& r : tally.reports) ADD_FAILURE() << r;
    EXPECT_EQ(tally.failures.load(), 0u) << "of " << total;
    // Every kind must produce contacts, not only misses.
    for (int k = 0; k < kinds; ++k) {
      EXPECT_GT(per_kind_hits[k].load(), total / kinds / 20) << cases::name(cases::Kind(k));
    }
    EXPECT_GT(tally.starts.load(), total / kinds / 4);
  }
}

// Rays and segments against capsules and segments (radius 0 on either side or both).
TEST(RaySweep, RaysAgainstCapsulesAndSegmentsAreExact) {
  constexpr int total = 100000;
  std::atomic<int> failures{0}, hits{0};
  std::mutex report_mutex;
  std::vector<std::string> reports;
  parallel::for_ranges<int>(0, total, 4096, [&](const auto& range) {
    for (int i = range.begin(); i != range.end(); ++i) {
      Random rng(0x4A75ull * 7919ull + std::uint64_t(i));
      const Vec3d origin = rng.chance(0.3) ? rng.in_cube(5000) : rng.in_cube(10);
      const double len_b = rng.chance(0.15) ? 0 : rng.log_uniform(1e-3, 10);
      const Vec3d db = rng.unit_vector();
      const Vec3d b0 = origin, b1 = origin + db * len_b;
      const double rb = rng.chance(0.5) ? 0.0 : rng.log_uniform(1e-3, 3);
      const double len_a = rng.chance(0.5) ? 0 : rng.log_uniform(1e-3, 10);
      const Vec3d da = rng.chance(0.25) ? db : rng.unit_vector();
      // Aimed at the obstacle's axis, passing it at a gap of 0, 10 um, or more.
      const Vec3d target = b0 + db * (len_b * rng.uniform(-0.2, 1.2));
      const double gap = rng.chance(0.5) ? 0.0 : rng.chance(0.5) ? 1e-5 : rng.uniform(0, 0.1);
      const Vec3d side = rng.unit_vector();
      const Vec3d start = target + side * (rb + gap) + rng.unit_vector() * rng.uniform(0.01, 2 * (rb + len_a + 1));
      const double speed = rng.log_uniform(1e-3, 30);
      Vec3d d = target + side * (rb + gap) - start;
      d = rng.chance(0.8) && length(d) > 0 ? d / length(d) * speed : rng.unit_vector() * speed;
      const Capsule moving{to_float(start), to_float(start + da * len_a), 0.f};
      const Capsule obstacle{to_float(b0), to_float(b1), float(rb)};
      const Vec3 motion = to_float(d);
      SweepHit hit;
      ASSERT_EQ(sweep_capsule_capsule(moving, motion, obstacle, hit), Status::ok);
      if (hit.hit) ++hits;
      const double largest = max_abs_component(origin) + 2 * (len_a + len_b + speed + 10);
      const std::string why = oracle::judge(hit, moving, motion, double(obstacle.radius),
                                            oracle::segment_obstacle(obstacle.a, obstacle.b),
                                            oracle::tolerance(largest), obstacle.radius);
      if (!why.empty()) {
        ++failures;
        std::lock_guard lock(report_mutex);
        if (reports.size() < 10) reports.push_back("case " + std::to_string(i) + ": " + why);
      }
    }
  });
  for (const auto& r : reports) ADD_FAILURE() << r;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(hits.load(), total / 10);
}

}  // namespace
