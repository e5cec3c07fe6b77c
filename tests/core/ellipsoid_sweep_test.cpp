// The swept-ellipsoid kernel: known answers, refusals, and the eSpace oracle on random and
// adversarial cases (grazing vertices, edges and faces at gaps 0 and +-10 um, sliding along faces,
// starting in contact), with round, flat, very flat and long ellipsoids.
#include <gtest/gtest.h>
#include "parallel/executor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include <capsweep/sweep.h>
#include <capsweep/world.h>
#include "core/random.h"
#include "tests/support/ellipsoid_oracle.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

const Triangle kFloor{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 0}}};

SweepHit sweep(const Ellipsoid& e, const Vec3& d, const Triangle& t = kFloor) {
  SweepHit hit;
  EXPECT_EQ(sweep_ellipsoid_triangle(e, d, t, hit), Status::ok);
  return hit;
}

TEST(EllipsoidSweep, AFlatEllipsoidLandsOnItsShortRadius) {
  // Radii (1, 0.25, 2): the bottom is 0.25 below the centre. From y = 1.25 down by 2: t = 0.5.
  const SweepHit h = sweep({{0, 1.25f, 0}, {1, 0.25f, 2}}, {0, -2, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_LE(h.t, 0.5f);
  EXPECT_NEAR(h.t, 0.5f, 1e-6f);
  EXPECT_FLOAT_EQ(h.normal.y, 1.f);
  EXPECT_NEAR(h.point.x, 0.f, 1e-6f);
  EXPECT_NEAR(h.point.y, 0.f, 1e-6f);
  EXPECT_EQ(h.feature, Feature::face);
}

TEST(EllipsoidSweep, ASideHitOnAWallGivesTheEllipsoidsSurfaceNormal) {
  // A wall x = 0 (normal -x toward the ellipsoid coming from -x); the ellipsoid's widest point
  // in x is 2 from its centre: from x = -4 moving +4, contact at t = 0.5.
  const Triangle wall{{{0, -5, -5}, {0, 5, 0}, {0, -5, 5}}};
  const SweepHit h = sweep({{-4, 0, 0}, {2, 1, 0.5f}}, {4, 0, 0}, wall);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.5f, 1e-6f);
  EXPECT_FLOAT_EQ(h.normal.x, -1.f);
  // Over the apex of a vertical triangle in the plane z = 0, moving along -z, the ellipsoid
  // touches with its lower front: the normal leans back toward it and up, as its surface does.
  const Triangle fence{{{-5, -3, 0}, {5, -3, 0}, {0, 0, 0}}};
  const SweepHit e = sweep({{0, 0.3f, 3}, {0.5f, 0.5f, 2}}, {0, 0, -6}, fence);
  ASSERT_TRUE(e.hit);
  EXPECT_NE(e.feature, Feature::face);
  EXPECT_GT(e.normal.z, 0.f);
  EXPECT_GT(e.normal.y, 0.f);
}

TEST(EllipsoidSweep, ARoundEllipsoidIsTheSphere) {
  Random rng(5);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 c = to_float(rng.in_cube(3)) + Vec3{0, 1, 0};
    const float r = float(rng.log_uniform(0.05, 1.5));
    const Vec3 d = to_float(rng.unit_vector() * rng.uniform(0.1, 6));
    SweepHit s, e;
    ASSERT_EQ(sweep_sphere_triangle(c, r, d, kFloor, s), Status::ok);
    ASSERT_EQ(sweep_ellipsoid_triangle({c, {r, r, r}}, d, kFloor, e), Status::ok);
    ASSERT_EQ(s.hit, e.hit) << i;
    if (!s.hit) continue;
    EXPECT_NEAR(s.t * length(d), e.t * length(d), 1e-5f) << i;
    EXPECT_NEAR(dot(s.normal, e.normal), 1.f, 1e-4f) << i;
    EXPECT_NEAR(s.depth, e.depth, 1e-5f) << i;
  }
}

Vec3d radii_of(Random& rng);

TEST(EllipsoidSweep, TheBoundingCapsuleHoldsTheEllipsoid) {
  Random rng(17);
  for (int i = 0; i < 20000; ++i) {
    const Vec3d c = rng.chance(0.5) ? rng.in_cube(5000) : rng.in_cube(5);
    const Vec3d R = radii_of(rng);
    const Ellipsoid e{to_float(c), to_float(R)};
    const Capsule bound = bounding_capsule(e);
    // Points on the ellipsoid's surface (the float ellipsoid, in double) lie inside.
    for (int k = 0; k < 8; ++k) {
      const Vec3d u = rng.unit_vector();
      const Vec3d p = to_double(e.centre) + Vec3d{u.x * e.radii.x, u.y * e.radii.y, u.z * e.radii.z};
      const Vec3d a = to_double(bound.a), ab = to_double(bound.b) - a;
      const double l = length_sq(ab);
      const double s = l > 0 ? std::clamp(dot(p - a, ab) / l, 0.0, 1.0) : 0.0;
      ASSERT_LE(length(p - (a + ab * s)), double(bound.radius) + 1e-9) << i;  // (this test rounds too)
    }
    // And it is tight: no wider than the middle radius plus rounding.
    const double middle = std::max({std::min(R.x, R.y), std::min(R.y, R.z), std::min(R.x, R.z)});
    EXPECT_LE(bound.radius, middle * (1 + 1e-6) + 1e-3) << i;
  }
}

TEST(EllipsoidSweep, BadEllipsoidsAreRefused) {
  SweepHit h;
  EXPECT_EQ(sweep_ellipsoid_triangle({{0, 1, 0}, {1, 0, 1}}, {0, -1, 0}, kFloor, h), Status::bad_radius);
  EXPECT_EQ(sweep_ellipsoid_triangle({{0, 1, 0}, {1, -1, 1}}, {0, -1, 0}, kFloor, h), Status::bad_radius);
  EXPECT_EQ(sweep_ellipsoid_triangle({{0, NAN, 0}, {1, 1, 1}}, {0, -1, 0}, kFloor, h), Status::non_finite_capsule);
  EXPECT_EQ(sweep_ellipsoid_triangle({{0, 1, 0}, {1, INFINITY, 1}}, {0, -1, 0}, kFloor, h), Status::non_finite_capsule);
  EXPECT_EQ(sweep_ellipsoid_triangle({{0, 1, 0}, {1, 1, 2e6f}}, {0, -1, 0}, kFloor, h), Status::out_of_range);
  EXPECT_EQ(sweep_ellipsoid_triangle({{0, 1, 0}, {1, 1, 1}}, {0, NAN, 0}, kFloor, h), Status::non_finite_motion);
  EXPECT_FALSE(h.hit);
}

// An adversarial case: an ellipsoid placed so that, at t0, it touches a feature point q of the
// triangle with outward normal n (its surface point with normal n is c + R^2 n / |R n|), then
// separated by `gap` along n and backed off along the motion.
struct Case {
  SweepEllipsoidQuery query;
  Triangle triangle;
};

Vec3d radii_of(Random& rng) {
  const double base = rng.log_uniform(0.01, 3);
  switch (rng.below(4)) {
    case 0: return {base, base, base};                                              // round
    case 1: return {base, base * rng.log_uniform(0.05, 0.5), base};                 // flat
    case 2: return {base * 1e-3, base, base * rng.uniform(0.5, 2)};                 // very flat
    default: return {base * rng.uniform(0.5, 2), base * rng.log_uniform(2, 10), base};  // long
  }
}

Case make_case(Random& rng, int kind) {
  const Vec3d origin = rng.chance(0.3) ? rng.in_cube(2000) : rng.in_cube(10);
  const double size = rng.log_uniform(1e-2, 30);
  Vec3d v[3] = {origin + rng.in_cube(size), origin + rng.in_cube(size), origin + rng.in_cube(size)};
  if (rng.chance(0.1)) v[2] = v[0] + (v[1] - v[0]) * rng.uniform(-0.5, 1.5);  // collinear
  const Vec3d face = cross(v[1] - v[0], v[2] - v[0]);
  const Vec3d R = radii_of(rng);
  const double speed = rng.log_uniform(1e-3, 20);
  Vec3d q, n;
  const int i = int(rng.below(3));
  if (kind == 0) {  // random: anywhere near, mostly toward the triangle
    const Vec3d c = origin + rng.in_cube(size + 2 * std::max({R.x, R.y, R.z}));
    Vec3d d = v[i] - c;
    d = rng.chance(0.7) && length(d) > 0 ? d / length(d) * speed : rng.unit_vector() * speed;
    return {{{to_float(c), to_float(R)}, to_float(d)}, {{to_float(v[0]), to_float(v[1]), to_float(v[2])}}};
  }
  if (kind == 1) {
    q = v[i];
    n = rng.unit_vector();
  } else if (kind == 2) {
    q = v[i] + (v[(i + 1) % 3] - v[i]) * rng.uniform();
    n = rng.unit_vector();
  } else {
    double a = rng.uniform(), b = rng.uniform();
    if (a + b > 1) a = 1 - a, b = 1 - b;
    q = v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b;
    n = length(face) > 0 ? face / length(face) * (rng.chance(0.5) ? 1.0 : -1.0) : rng.unit_vector();
  }
  const double gaps[] = {0, 1e-5, -1e-5, 2e-4, -0.3 * R.y};
  const double gap = kind == 4 ? -rng.uniform(0, 0.9) * std::min({R.x, R.y, R.z}) : gaps[rng.below(5)];
  const Vec3d rn = {R.x * n.x, R.y * n.y, R.z * n.z};
  const Vec3d to_surface = Vec3d{R.x * rn.x, R.y * rn.y, R.z * rn.z} / length(rn);
  const Vec3d touching = q + to_surface + n * gap;
  // Tangent to the ellipsoid at the contact (grazing), or approaching.
  Vec3d tangent = cross(n, rng.unit_vector());
  tangent = tangent / length(tangent);
  Vec3d d = (kind == 3 && rng.chance(0.5)) || rng.chance(0.5) ? tangent : tangent - n * rng.uniform(0.1, 2);
  d = d / length(d) * speed;
  const double t0 = kind == 4 ? 0.0 : rng.uniform();
  const Vec3d c = touching - d * t0;
  return {{{to_float(c), to_float(R)}, to_float(d)}, {{to_float(v[0]), to_float(v[1]), to_float(v[2])}}};
}

const char* kKinds[] = {"random", "at_vertex", "at_edge", "at_face", "start_contact"};

TEST(EllipsoidSweep, RandomAndAdversarialCasesAreExact) {
  constexpr int total = 200000;
  std::atomic<int> failures{0};
  std::vector<std::atomic<int>> hits(5);
  std::mutex mutex;
  std::vector<std::string> reports;
  parallel::for_ranges<int>(0, total, 2048, [&](const auto& range) {
    for (int i = range.begin(); i != range.end(); ++i) {
      Random rng(0xE111ull * 7919ull + std::uint64_t(i));
      const int kind = i % 5;
      const Case c = make_case(rng, kind);
      SweepHit hit;
      ASSERT_EQ(sweep_ellipsoid_triangle(c.query.ellipsoid, c.query.motion, c.triangle, hit), Status::ok);
      if (hit.hit) ++hits[kind];
      hit.triangle = 0;
      double largest = std::max(max_abs_component(c.query.ellipsoid.centre),
                                max_abs_component(c.query.ellipsoid.centre + c.query.motion));
      for (const Vec3& v : c.triangle.v) largest = std::max(largest, double(max_abs_component(v)));
      largest += max_abs_component(c.query.ellipsoid.radii);
      const std::string why = oracle::judge_ellipsoid(hit, c.query, std::span(&c.triangle, 1), oracle::tolerance(largest));
      if (!why.empty()) {
        ++failures;
        std::lock_guard lock(mutex);
        if (reports.size() < 10) reports.push_back(std::string(kKinds[kind]) + " case " + std::to_string(i) + ": " + why);
      }
    }
  });
  for (const auto& r : reports) ADD_FAILURE() << r;
  EXPECT_EQ(failures.load(), 0) << "of " << total;
  for (int k = 0; k < 5; ++k) EXPECT_GT(hits[k].load(), total / 5 / 10) << kKinds[k];
}

}  // namespace
