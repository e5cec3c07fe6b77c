// Known answers for every part of the rounded prism, invariances, and the skin property.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <capsweep/sweep.h>
#include "tests/support/cases.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

// A floor triangle (counter-clockwise seen from above, normal +Y) with an edge on the Z axis.
const Triangle kTri{{{0, 0, 0}, {0, 0, 2}, {2, 0, 0}}};

SweepHit sweep(const Capsule& c, const Vec3& d, const Triangle& t = kTri) {
  SweepHit hit;
  EXPECT_EQ(sweep_capsule_triangle(c, d, t, hit), Status::ok);
  return hit;
}

void expect_vec(const Vec3& got, const Vec3& want, float eps = 2e-6f) {
  EXPECT_NEAR(got.x, want.x, eps);
  EXPECT_NEAR(got.y, want.y, eps);
  EXPECT_NEAR(got.z, want.z, eps);
}

TEST(SweepKnownAnswers, BottomSphereLandsOnTheFrontFace) {
  const SweepHit h = sweep({{0.25f, 2, 0.25f}, {0.25f, 3, 0.25f}, 0.5f}, {0, -2, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.75f, 1e-6f);
  expect_vec(h.normal, {0, 1, 0});
  expect_vec(h.point, {0.25f, 0, 0.25f});
  EXPECT_EQ(h.feature, Feature::face);
}

TEST(SweepKnownAnswers, TopSphereHitsTheBackFaceFromBelow) {
  const SweepHit h = sweep({{0.25f, -3, 0.25f}, {0.25f, -2, 0.25f}, 0.5f}, {0, 4, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.375f, 1e-6f);
  expect_vec(h.normal, {0, -1, 0});
  expect_vec(h.point, {0.25f, 0, 0.25f});
  EXPECT_EQ(h.feature, Feature::face);
}

TEST(SweepKnownAnswers, CapsuleSideMeetsAnEdgeOnTheEdgeByAxisParallelogram) {
  // Vertical capsule crossing the floor plane, moving +X into the edge on the Z axis.
  const SweepHit h = sweep({{-2, -1, 0.5f}, {-2, 1, 0.5f}, 0.5f}, {3, 0, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.5f, 1e-6f);
  expect_vec(h.normal, {-1, 0, 0});
  expect_vec(h.point, {0, 0, 0.5f});
  EXPECT_EQ(h.feature, Feature::edge);
}

TEST(SweepKnownAnswers, EndSphereMeetsAnEdgeOnAnEdgeCylinder) {
  const SweepHit h = sweep({{-0.2f, 1, 0.5f}, {-0.2f, 2, 0.5f}, 0.5f}, {0, -2, 0});
  ASSERT_TRUE(h.hit);
  const float y = std::sqrt(0.25f - 0.04f);
  EXPECT_NEAR(h.t, (1 - y) / 2, 1e-6f);
  expect_vec(h.normal, {-0.4f, 2 * y, 0});
  expect_vec(h.point, {0, 0, 0.5f});
  EXPECT_EQ(h.feature, Feature::edge);
}

TEST(SweepKnownAnswers, CapsuleSideMeetsAVertexOnAVertexByAxisCylinder) {
  const SweepHit h = sweep({{4, -1, 0.1f}, {4, 1, 0.1f}, 0.5f}, {-2, 0, 0});
  ASSERT_TRUE(h.hit);
  const float x = 2 + std::sqrt(0.25f - 0.01f);
  EXPECT_NEAR(h.t, (4 - x) / 2, 1e-6f);
  expect_vec(h.normal, {(x - 2) / 0.5f, 0, 0.2f});
  expect_vec(h.point, {2, 0, 0});
  EXPECT_EQ(h.feature, Feature::vertex);
}

TEST(SweepKnownAnswers, EndSphereMeetsAVertexOnACornerSphere) {
  const SweepHit h = sweep({{2.3f, 1, 0}, {2.3f, 2, 0}, 0.5f}, {0, -2, 0});
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.3f, 1e-6f);
  expect_vec(h.normal, {0.6f, 0.8f, 0});
  expect_vec(h.point, {2, 0, 0});
  EXPECT_EQ(h.feature, Feature::vertex);
}

TEST(SweepKnownAnswers, SphereIsACapsuleOfZeroLength) {
  SweepHit h;
  ASSERT_EQ(sweep_sphere_triangle({0.25f, 2, 0.25f}, 0.5f, {0, -2, 0}, kTri, h), Status::ok);
  EXPECT_NEAR(h.t, 0.75f, 1e-6f);
}

TEST(SweepKnownAnswers, ZeroMotionIsAPureOverlapTest) {
  EXPECT_FALSE(sweep({{0.25f, 0.6f, 0.25f}, {0.25f, 2, 0.25f}, 0.5f}, {0, 0, 0}).hit);
  const SweepHit h = sweep({{0.25f, 0.4f, 0.25f}, {0.25f, 2, 0.25f}, 0.5f}, {0, 0, 0});
  EXPECT_TRUE(h.started_in_contact());
  EXPECT_NEAR(h.depth, 0.1f, 1e-6f);
}

TEST(SweepKnownAnswers, StartingOverlapReportsTZeroWhicheverWayItMoves) {
  for (const Vec3 d : {Vec3{0, 1, 0}, Vec3{0, -1, 0}, Vec3{1, 0, 0}}) {
    const SweepHit h = sweep({{0.25f, 0.3f, 0.25f}, {0.25f, 2, 0.25f}, 0.5f}, d);
    ASSERT_TRUE(h.started_in_contact());
    EXPECT_NEAR(h.depth, 0.2f, 1e-6f);
    expect_vec(h.normal, {0, 1, 0});
  }
}

TEST(SweepKnownAnswers, MotionParallelToTheFaceAboveItMisses) {
  EXPECT_FALSE(sweep({{-3, 0.51f, 0.5f}, {-3, 2, 0.5f}, 0.5f}, {8, 0, 0}).hit);
  EXPECT_TRUE(sweep({{-3, 0.49f, 0.5f}, {-3, 2, 0.5f}, 0.5f}, {8, 0, 0}).hit);
}

TEST(SweepKnownAnswers, CollinearTriangleActsAsItsLongestEdge) {
  const Triangle line{{{0, 0, 0}, {2, 0, 0}, {1, 0, 0}}};
  const SweepHit h = sweep({{1.5f, 2, 0}, {1.5f, 3, 0}, 0.5f}, {0, -2, 0}, line);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.75f, 1e-6f);
  expect_vec(h.point, {1.5f, 0, 0});
  EXPECT_EQ(h.feature, Feature::edge);
}

TEST(SweepKnownAnswers, CoincidentTriangleActsAsAPoint) {
  const Triangle dot{{{1, 0, 1}, {1, 0, 1}, {1, 0, 1}}};
  const SweepHit h = sweep({{1, 2, 1}, {1, 3, 1}, 0.5f}, {0, -2, 0}, dot);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 0.75f, 1e-6f);
  EXPECT_EQ(h.feature, Feature::vertex);
}

TEST(SweepKnownAnswers, CapsuleAgainstCapsuleCrossingAxes) {
  // Moving capsule along X at height 2, static one along Z at height 0: contact at y gap 1.5.
  SweepHit h;
  ASSERT_EQ(sweep_capsule_capsule({{-1, 2, 0}, {1, 2, 0}, 0.5f}, {0, -4, 0}, {{0, 0, -1}, {0, 0, 1}, 0.25f}, h),
            Status::ok);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, (2 - 0.75f) / 4, 1e-6f);
  expect_vec(h.normal, {0, 1, 0});
  expect_vec(h.point, {0, 0.25f, 0});
  EXPECT_EQ(h.feature, Feature::edge);
}

TEST(SweepKnownAnswers, CapsuleAgainstParallelCapsule) {
  SweepHit h;
  ASSERT_EQ(sweep_capsule_capsule({{0, 3, 0}, {2, 3, 0}, 0.5f}, {0, -3, 0}, {{1, 0, 0}, {4, 0, 0}, 0.5f}, h),
            Status::ok);
  ASSERT_TRUE(h.hit);
  EXPECT_NEAR(h.t, 2.0f / 3.0f, 1e-6f);
  expect_vec(h.normal, {0, 1, 0});
}

TEST(SweepKnownAnswers, CapsuleAgainstSpherePointAndSegment) {
  SweepHit h;
  ASSERT_EQ(sweep_capsule_sphere({{0, 3, 0}, {0, 4, 0}, 0.5f}, {0, -4, 0}, {0, 0, 0}, 1.f, h), Status::ok);
  EXPECT_NEAR(h.t, 1.5f / 4, 1e-6f);
  expect_vec(h.point, {0, 1, 0});
  EXPECT_EQ(h.feature, Feature::vertex);
  ASSERT_EQ(sweep_capsule_point({{0, 3, 0}, {0, 4, 0}, 0.5f}, {0, -4, 0}, {0, 0, 0}, h), Status::ok);
  EXPECT_NEAR(h.t, 2.5f / 4, 1e-6f);
  ASSERT_EQ(sweep_capsule_segment({{0, 3, 0}, {0, 4, 0}, 0.5f}, {0, -4, 0}, {-1, 0, 0}, {1, 0, 0}, h), Status::ok);
  EXPECT_NEAR(h.t, 2.5f / 4, 1e-6f);
  EXPECT_EQ(h.feature, Feature::edge);
}

// Each of the 20 parts of the rounded prism, one at a time, on an equilateral triangle in a random
// pose: the capsule approaches along a direction w inside that part's normal cone, so the first
// contact is known: t = gap / |d|, normal = w, and the point on the triangle.
TEST(SweepKnownAnswers, EveryPartOfTheRoundedPrism) {
  Random rng(20);
  for (int trial = 0; trial < 200; ++trial) {
    // A random rigid pose: orthonormal frame (u, v, n), n the triangle's normal.
    const Vec3d n = rng.unit_vector();
    Vec3d u = cross(n, rng.unit_vector());
    u = u / length(u);
    const Vec3d v = cross(n, u);
    const Vec3d center = rng.in_cube(trial % 2 ? 1000.0 : 5.0);
    const double size = rng.log_uniform(0.1, 20), r = rng.log_uniform(0.01, 2), len = rng.log_uniform(0.05, 3);
    Vec3d tri[3];
    for (int i = 0; i < 3; ++i) {
      const double angle = 2 * 3.14159265358979323846 * i / 3;
      tri[i] = center + (u * std::cos(angle) + v * std::sin(angle)) * size;  // counter-clockwise about n
    }
    const Triangle t{{to_float(tri[0]), to_float(tri[1]), to_float(tri[2])}};
    const double gap = rng.uniform(0.1, 2), travel = gap * rng.uniform(1.2, 3);

    struct Part {
      const char* what;
      Vec3d contact;   // the touched point on the triangle
      Vec3d w;         // approach normal (unit), from the triangle toward the capsule
      Vec3d axis;      // capsule axis direction, from the end nearest the triangle
      bool axis_across;  // the axis crosses the contact's plane (side contact) instead of pointing away
      Feature feature;
    };
    std::vector<Part> parts;
    for (int side = 0; side < 2; ++side) {
      const Vec3d out = side ? -n : n;
      parts.push_back({"face", center, out, out, false, Feature::face});
    }
    for (int i = 0; i < 3; ++i) {
      const Vec3d radial = (tri[i] - center) / length(tri[i] - center);
      const Vec3d mid = (tri[i] + tri[(i + 1) % 3]) * 0.5;
      const Vec3d m = (mid - center) / length(mid - center);  // outward in-plane edge normal
      const Vec3d sphere_w = (radial + n * 0.5) / length(radial + n * 0.5);
      const Vec3d edge_w = (m - n * 0.7) / length(m - n * 0.7);
      parts.push_back({"corner sphere", tri[i], sphere_w, sphere_w, false, Feature::vertex});
      parts.push_back({"edge cylinder", mid, edge_w, edge_w, false, Feature::edge});
      parts.push_back({"vertex-by-axis cylinder", tri[i], radial, n, true, Feature::vertex});
      parts.push_back({"edge-by-axis parallelogram", mid, m, n, true, Feature::edge});
    }
    for (const Part& p : parts) {
      // Both ends of the axis for the end parts (faces, corner spheres, edge cylinders).
      for (int end = 0; end < (p.axis_across ? 1 : 2); ++end) {
        // An end part's axis leans sideways too, so that the far end projects elsewhere on the
        // triangle than the near one (a point taken from the wrong end shows).
        Vec3d lean = cross(p.w, n);
        lean = length(lean) > 1e-6 ? lean / length(lean) : u;
        const Vec3d axis = p.axis_across ? p.axis : (p.axis + lean * 0.4) / length(p.axis + lean * 0.4);
        const Vec3d near = p.contact + p.w * (r + gap) - (p.axis_across ? axis * (len / 2) : Vec3d{});
        const Vec3d far = near + axis * len;
        const Capsule c = end ? Capsule{to_float(far), to_float(near), float(r)} : Capsule{to_float(near), to_float(far), float(r)};
        const Vec3 d = to_float(-p.w * travel);
        const SweepHit h = sweep(c, d, t);
        const std::string label = std::string(p.what) + (end ? " (far end first)" : "") + ", trial " + std::to_string(trial);
        ASSERT_TRUE(h.hit) << label;
        const double tol = 4e-7 * (length(center) + size + 10);
        EXPECT_NEAR(double(h.t) * travel, gap, 4 * tol) << label;
        // Rounding the pose to float moves vertices by up to tol, which tilts a normal by tol / size.
        EXPECT_LE(length(to_double(h.normal) - p.w), 1e-5 + 4 * tol / std::min(size, r)) << label;
        EXPECT_LE(length(to_double(h.point) - p.contact), 4 * tol) << label;
        EXPECT_EQ(h.feature, p.feature) << label;
      }
    }
  }
}

// Invariances on random cases: swapping the capsule's endpoints, reversing the winding and
// rotating by a permutation of axes (exact in float) change nothing; translating changes t by
// no more than the tolerance.
TEST(SweepInvariance, EndpointsWindingRotationAndTranslation) {
  Random rng(99);
  for (int i = 0; i < 100000; ++i) {
    const cases::SweepCase c = cases::make(rng, cases::Kind(i % int(cases::Kind::count)));
    const SweepHit h = sweep(c.capsule, c.motion, c.triangle);

    const SweepHit swapped = sweep({c.capsule.b, c.capsule.a, c.capsule.radius}, c.motion, c.triangle);
    const SweepHit rewound = sweep(c.capsule, c.motion, {{c.triangle.v[0], c.triangle.v[2], c.triangle.v[1]}});
    auto rot = [](const Vec3& v) { return Vec3{v.z, v.x, v.y}; };
    const SweepHit rotated = sweep({rot(c.capsule.a), rot(c.capsule.b), c.capsule.radius}, rot(c.motion),
                                   {{rot(c.triangle.v[0]), rot(c.triangle.v[1]), rot(c.triangle.v[2])}});
    const double tol = oracle::tolerance(cases::largest_coordinate(c));
    const double speed = length(to_double(c.motion));
    for (const SweepHit* other : {&swapped, &rewound, &rotated}) {
      // Same answer, up to the tolerance band (grazes may fall either way inside it).
      if (h.hit != other->hit) {
        // ...which the shrunk capsule must miss.
        SweepHit shrunk;
        sweep_capsule_triangle({c.capsule.a, c.capsule.b, float(std::max(c.capsule.radius - tol, 1e-6))}, c.motion,
                               c.triangle, shrunk);
        ASSERT_FALSE(shrunk.hit) << "case " << i;
      } else if (h.hit) {
        ASSERT_LE(std::fabs(double(h.t) - other->t) * speed, 2 * tol) << "case " << i;
      }
    }

  }
}

// The kernel works relative to the capsule, so an exact translation changes no bit of t or the
// normal. Coordinates on a 2^-10 grid below 2^12 stay exact when shifted by a multiple of 2^-10.
TEST(SweepInvariance, ExactTranslationGivesIdenticalAnswers) {
  Random rng(98);
  auto grid = [](const Vec3& v) {
    auto q = [](float x) { return std::round(std::clamp(x, -3000.f, 3000.f) * 1024.f) / 1024.f; };
    return Vec3{q(v.x), q(v.y), q(v.z)};
  };
  const Vec3 shift{1000.5f, -1023.25f, 513.125f};
  int hits = 0;
  for (int i = 0; i < 100000; ++i) {
    cases::SweepCase c = cases::make(rng, cases::Kind(i % int(cases::Kind::count)));
    c.capsule.a = grid(c.capsule.a);
    c.capsule.b = grid(c.capsule.b);
    c.motion = grid(c.motion);
    for (Vec3& v : c.triangle.v) v = grid(v);
    const SweepHit h = sweep(c.capsule, c.motion, c.triangle);
    const SweepHit moved = sweep({c.capsule.a + shift, c.capsule.b + shift, c.capsule.radius}, c.motion,
                                 {{c.triangle.v[0] + shift, c.triangle.v[1] + shift, c.triangle.v[2] + shift}});
    ASSERT_EQ(h.hit, moved.hit) << "case " << i;
    if (!h.hit) continue;
    ++hits;
    ASSERT_EQ(h.t, moved.t) << "case " << i;
    ASSERT_EQ(h.normal, moved.normal) << "case " << i;
    ASSERT_EQ(h.depth, moved.depth) << "case " << i;
    ASSERT_EQ(h.feature, moved.feature) << "case " << i;
    const Vec3 back = moved.point - shift;
    ASSERT_LE(max_abs_component(back - h.point), 1e-3f) << "case " << i;  // float rounding of the point
  }
  EXPECT_GT(hits, 20000);
}

// A capsule moved to the contact minus a small skin is clear of the triangle.
TEST(SweepSkin, AdvancingToContactMinusSkinNeverOverlaps) {
  Random rng(5);
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const cases::SweepCase c = cases::make(rng, cases::Kind(i % int(cases::Kind::count)));
    const SweepHit h = sweep(c.capsule, c.motion, c.triangle);
    const double speed = length(to_double(c.motion));
    if (!h.hit || h.t == 0 || speed == 0) continue;
    const double skin = 1e-6 + 2e-8 * cases::largest_coordinate(c);
    const double t = std::max(0.0, double(h.t) - skin / speed);
    const Vec3d d = to_double(c.motion);
    const oracle::Gap g =
        oracle::triangle_obstacle(c.triangle)(to_double(c.capsule.a) + d * t, to_double(c.capsule.b) + d * t);
    ASSERT_GT(g.distance, double(c.capsule.radius)) << "case " << i << " kind " << cases::name(c.kind);
    ++checked;
  }
  EXPECT_GT(checked, 40000);
}

}  // namespace
