// sweep_upright_capsules: the short kernel for two upright capsules (agents meeting agents),
// held against the independent oracle and against the general kernel it replaces, on random and
// adversarial pairs: grazing sides, ends meeting ends, falls onto heads, points and segments,
// 5 km from the origin.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/random.h"
#include "core/sweep_upright.h"
#include "tests/support/oracle.h"
#include <capsweep/sweep.h>

namespace {

using namespace capsweep;

Capsule upright(double x, double y, double z, double height, double r) {
  return {{float(x), float(y), float(z)}, {float(x), float(y + height), float(z)}, float(r)};
}

struct Pair {
  Capsule moving, obstacle;
  Vec3 motion;
};

// Case i of the adversarial mix: the obstacle is aimed at, grazed (its side at the reach plus or
// minus a few tolerances from the path), dropped onto or risen into; axes of any height
// (including points, and b below a), rays and segments (radius 0) on either side, motions of any
// length, pure vertical and none.
Pair upright_pair(int i) {
  Random rng(0x5EEDull * 131ull + std::uint64_t(i));
  const double far = i % 5 == 0 ? 5000.0 : 0.0;
  const double ra = i % 17 == 0 ? 0.0 : rng.uniform(0.05, 0.6), rb = i % 11 == 0 ? 0.0 : rng.uniform(0.05, 0.6);
  const double ha = i % 9 == 0 ? 0.0 : rng.uniform(-2, 2), hb = i % 13 == 0 ? 0.0 : rng.uniform(-2, 2);
  const Capsule moving = upright(far + rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1), ha, ra);
  Vec3 d;
  Capsule obstacle;
  switch (i % 4) {
    case 0: {  // aimed at: the obstacle somewhere near the path
      d = {float(rng.uniform(-2, 2)), float(rng.uniform(-0.5, 0.5)), float(rng.uniform(-2, 2))};
      const double s = rng.uniform(-0.2, 1.2);
      obstacle = upright(moving.a.x + s * d.x + rng.uniform(-1, 1), rng.uniform(-2, 2),
                         moving.a.z + s * d.z + rng.uniform(-1, 1), hb, rb);
      break;
    }
    case 1: {  // grazing: the axes' horizontal distance at closest approach is the reach +- 3e-4
      d = {float(rng.uniform(-2, 2)), float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-2, 2))};
      const double s = rng.uniform(0.1, 0.9), angle = rng.uniform(0, 6.283185307179586);
      const double len = std::hypot(double(d.x), double(d.z));
      const double px = len > 0 ? -d.z / len : std::cos(angle), pz = len > 0 ? d.x / len : std::sin(angle);
      const double gap = ra + rb + rng.uniform(-3e-4, 3e-4);
      obstacle = upright(moving.a.x + s * d.x + gap * px, rng.uniform(-2, 2), moving.a.z + s * d.z + gap * pz, hb, rb);
      break;
    }
    case 2: {  // falling onto, or rising into, the other's end: vertical or nearly
      const double up = rng.chance(0.5) ? 1.0 : -1.0;
      obstacle = upright(moving.a.x + rng.uniform(-0.8, 0.8), moving.a.y - up * rng.uniform(1, 4),
                         moving.a.z + rng.uniform(-0.8, 0.8), hb, rb);
      d = {rng.chance(0.5) ? 0.f : float(rng.uniform(-0.2, 0.2)), float(-up * rng.uniform(0.5, 8)), 0.f};
      break;
    }
    default: {  // anywhere nearby, any motion, tiny to long
      d = to_float(rng.unit_vector() * rng.log_uniform(1e-4, 20));
      obstacle = upright(moving.a.x + rng.uniform(-3, 3), rng.uniform(-3, 3), moving.a.z + rng.uniform(-3, 3), hb, rb);
      break;
    }
  }
  if (i % 23 == 0) d = {};  // standing still
  return {moving, obstacle, d};
}

double largest(const Pair& p) {
  double m = 0;
  for (const Vec3& v : {p.moving.a, p.moving.b, p.obstacle.a, p.obstacle.b, p.moving.a + p.motion, p.moving.b + p.motion}) {
    m = std::max(m, double(max_abs_component(v)));
  }
  return m;
}

TEST(SweepUpright, EveryAnswerIsExactByTheOracle) {
  int answered = 0, hits = 0, grazing_hits = 0;
  for (int i = 0; i < 300000; ++i) {
    const Pair p = upright_pair(i);
    SweepHit h;
    if (!detail::sweep_upright_capsules(p.moving, p.motion, p.obstacle, h)) continue;
    ++answered;
    hits += h.hit;
    grazing_hits += h.hit && i % 4 == 1;
    const std::string why =
        oracle::judge(h, p.moving, p.motion, double(p.moving.radius) + double(p.obstacle.radius),
                      oracle::segment_obstacle(p.obstacle.a, p.obstacle.b), oracle::tolerance(largest(p) + 10),
                      p.obstacle.radius);
    ASSERT_TRUE(why.empty()) << "case " << i << ": " << why;
  }
  EXPECT_GT(answered, 250000);  // the starts in reach are few
  EXPECT_GT(hits, 40000);
  EXPECT_GT(grazing_hits, 15000);
}

TEST(SweepUpright, AgreesWithTheGeneralKernel) {
  // Away from grazing, both kernels hit or both miss, at times within the tolerance, with the
  // same normal and contact point within rounding.
  int compared = 0;
  for (int i = 0; i < 300000; ++i) {
    const Pair p = upright_pair(i);
    SweepHit fast, general;
    if (!detail::sweep_upright_capsules(p.moving, p.motion, p.obstacle, fast)) continue;
    detail::sweep_capsule_capsule_general(p.moving, p.motion, p.obstacle, general);
    const double tol = oracle::tolerance(largest(p) + 10), path = length(to_double(p.motion));
    if (fast.hit != general.hit) {
      // Only a graze may go either way: the shrunk capsule never touches, the grown one does.
      const Vec3d d = to_double(p.motion);
      const Vec3d a = to_double(p.moving.a), b = to_double(p.moving.b);
      const auto obstacle = oracle::segment_obstacle(p.obstacle.a, p.obstacle.b);
      const double r = double(p.moving.radius) + double(p.obstacle.radius);
      ASSERT_FALSE(oracle::time_of_impact(obstacle, a, b, d, std::max(0.0, r - tol), 0.0).has_value())
          << "case " << i << ": one kernel missed a pair the other hit, and not a graze";
      continue;
    }
    if (!fast.hit) continue;
    ++compared;
    ASSERT_LE(std::fabs(double(fast.t) - double(general.t)) * path, 2 * tol) << "case " << i;
    ASSERT_GT(dot(fast.normal, general.normal), 0.99f) << "case " << i;
    // A point (or sphere) obstacle has no side: both say its vertex. (Side by side with a
    // segment, the general kernel may credit an end swept along the moving axis, a vertex, where
    // this one says the side; both are on the obstacle's surface.)
    if (p.obstacle.a.y == p.obstacle.b.y) {
      ASSERT_EQ(fast.feature, Feature::vertex) << "case " << i;
      ASSERT_EQ(general.feature, Feature::vertex) << "case " << i;
    }
    ASSERT_LE(length(to_double(fast.point) - to_double(general.point)), 2 * tol + 1e-3 * path +
                                                                            std::fabs(p.moving.b.y - p.moving.a.y) +
                                                                            std::fabs(p.obstacle.b.y - p.obstacle.a.y))
        << "case " << i;  // side by side, the contact is a run of points: any of it will do
  }
  EXPECT_GT(compared, 40000);
}

TEST(SweepUpright, KnownAnswers) {
  // Head on: a person walks 4 m at another 2 m away; the sides touch after 2 - 0.7 m.
  const Capsule person = upright(0, 0.35, 0, 1.1, 0.35);
  SweepHit h;
  ASSERT_EQ(sweep_capsule_capsule(upright(-2, 0.35, 0, 1.1, 0.35), {4, 0, 0}, person, h), Status::ok);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 1.3 / 4, 1e-6);
  EXPECT_LE(double(h.t), 1.3 / 4);  // rounded toward zero
  EXPECT_EQ(h.normal.x, -1.f);
  EXPECT_EQ(h.feature, Feature::edge);
  EXPECT_NEAR(h.point.x, -0.35f, 1e-6);
  EXPECT_NEAR(h.point.y, 0.35f + 0.55f, 1e-6);  // the middle of the run of heights they share

  // Falling 3 m from 1 m above a head (axes 1.7 m apart): the ends meet after 1 m, normal up.
  ASSERT_EQ(sweep_capsule_capsule(upright(0, 1.45 + 1.7, 0, 1.1, 0.35), {0, -3, 0}, person, h), Status::ok);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 1.0 / 3, 1e-6);
  EXPECT_EQ(h.normal.y, 1.f);
  EXPECT_EQ(h.feature, Feature::vertex);
  EXPECT_NEAR(h.point.y, 1.45f + 0.35f, 1e-6);

  // Passing 1 cm clear, and moving away: misses.
  ASSERT_EQ(sweep_capsule_capsule(upright(-2, 0.35, 0.71, 1.1, 0.35), {4, 0, 0}, person, h), Status::ok);
  EXPECT_FALSE(h.hit);
  ASSERT_EQ(sweep_capsule_capsule(upright(-2, 0.35, 0, 1.1, 0.35), {-4, 0, 0}, person, h), Status::ok);
  EXPECT_FALSE(h.hit);
}

TEST(SweepUpright, LeavesTiltedAxesAndStartsInReachToTheGeneralKernel) {
  const Capsule person = upright(0, 0.35, 0, 1.1, 0.35);
  SweepHit h;
  h.t = 0.25f;  // left alone when declined
  EXPECT_FALSE(detail::sweep_upright_capsules({{-2, 0, 0}, {-2.001f, 1, 0}, 0.35f}, {4, 0, 0}, person, h));
  EXPECT_FALSE(detail::sweep_upright_capsules(upright(-2, 0, 0, 1, 0.35), {4, 0, 0}, {{0, 0, 0}, {0, 1, 0.01f}, 0.3f}, h));
  EXPECT_FALSE(detail::sweep_upright_capsules(upright(0.5, 0.35, 0, 1.1, 0.35), {1, 0, 0}, person, h));  // overlapping
  EXPECT_FALSE(detail::sweep_upright_capsules(upright(0.7, 0.35, 0, 1.1, 0.35), {1, 0, 0}, person, h));  // touching
  EXPECT_EQ(h.t, 0.25f);
  // The public sweep answers those starts with the general kernel: depth and push-out normal.
  ASSERT_EQ(sweep_capsule_capsule(upright(0.5, 0.35, 0, 1.1, 0.35), {-1, 0, 0}, person, h), Status::ok);
  ASSERT_TRUE(h.started_in_contact());
  EXPECT_NEAR(h.depth, 0.2f, 1e-6);
  EXPECT_NEAR(h.normal.x, 1.f, 1e-6);
}

}  // namespace
