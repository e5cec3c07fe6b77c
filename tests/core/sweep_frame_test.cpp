// The exact sweep's shortcuts: skipping the parts of the rounded prism that cannot be entered
// before the best contact found so far, and the start's closest points when the axis lies beyond
// reach of the triangle's plane, changes no bit of the answer (core/sweep_frame.h).
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdint>

#include <capsweep/sweep.h>
#include "core/sweep_frame.h"
#include "tests/support/cases.h"

namespace {

using namespace capsweep;

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }
bool same_bits(const Vec3d& a, const Vec3d& b) { return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z); }

// The frame the capsule kernel builds for a case (core/sweep.cpp, sweep_validated).
detail::Frame frame_of(const cases::SweepCase& c) {
  const Capsule swept = swept_capsule(c.capsule, c.motion);
  Vec3d origin;
  return detail::frame_at(swept.a, swept.b, swept.radius, c.motion, c.triangle.v, origin);
}

TEST(SweepFrame, SkippingPartsThatCannotComeFirstChangesNoBit) {
  Random rng(2026);
  std::size_t hits = 0, starts = 0, cases_run = 0;
  for (cases::Mover mover : {cases::Mover::capsule, cases::Mover::ray, cases::Mover::segment}) {
    for (int k = 0; k < int(cases::Kind::count); ++k) {
      for (int n = 0; n < 4000; ++n) {
        const cases::SweepCase c = cases::make(rng, cases::Kind(k), mover);
        const detail::Frame f = frame_of(c);
        detail::Best skipping, every;
        detail::sweep_frame(f, skipping);
        detail::sweep_frame_every_part(f, every);
        SCOPED_TRACE(std::string(cases::name(cases::Kind(k))) + " case " + std::to_string(n));
        ASSERT_TRUE(same_bits(skipping.t, every.t)) << skipping.t << " vs " << every.t;
        ASSERT_TRUE(same_bits(skipping.normal, every.normal));
        ASSERT_TRUE(same_bits(skipping.point, every.point));
        ASSERT_EQ(skipping.feature, every.feature);
        ASSERT_TRUE(same_bits(skipping.depth, every.depth));
        hits += every.t <= 1.0;
        starts += every.t == 0.0;
        ++cases_run;
      }
    }
  }
  // Both outcomes, and starts in contact, are exercised.
  EXPECT_GT(hits, cases_run / 3);
  EXPECT_LT(hits, cases_run);
  EXPECT_GT(starts, cases_run / 50);
}

// The common sweep of a walking agent: a person's capsule straight down onto a floor triangle,
// and sideways past triangles near and far; every case the same bits.
TEST(SweepFrame, AGroundCheckAndItsNeighboursGiveTheFullAnswer) {
  Random rng(7);
  for (int n = 0; n < 20000; ++n) {
    cases::SweepCase c;
    const float x = float(rng.uniform(-1.5, 1.5)), z = float(rng.uniform(-1.5, 1.5)), lift = float(rng.uniform(0., 0.03));
    c.capsule = {{x, 0.35f + lift, z}, {x, 1.45f + lift, z}, 0.36f};
    c.motion = n % 2 ? Vec3{0, -0.35f, 0} : Vec3{float(rng.uniform(-0.2, 0.2)), 0, float(rng.uniform(-0.2, 0.2))};
    c.triangle = {{{0, 0, 0}, {1, float(rng.uniform(-0.1, 0.1)), 0}, {0, 0, 1}}};
    const detail::Frame f = frame_of(c);
    detail::Best skipping, every;
    detail::sweep_frame(f, skipping);
    detail::sweep_frame_every_part(f, every);
    ASSERT_TRUE(same_bits(skipping.t, every.t)) << "case " << n;
    ASSERT_TRUE(same_bits(skipping.normal, every.normal)) << "case " << n;
    ASSERT_TRUE(same_bits(skipping.point, every.point)) << "case " << n;
    ASSERT_EQ(skipping.feature, every.feature) << "case " << n;
  }
}

// The bound that spares edge parts (the axis's distance from the edge's line, across the plane
// and above it): a capsule standing over a triangle with an edge right under its axis, where the
// face and the edge parts nearly tie. The edge passes 10 nm to 10 mm across either way (near the
// origin, where floats resolve that; a quarter of the cases 3 km out, as fine as floats go
// there), the body 1 um to 10 cm above its reach, upright on the face or tilted, moving down the
// normal or aslant; triangles of any orientation and size, slivers included.
TEST(SweepFrame, AnEdgeUnderTheBodyIsSparedOnlyWhereItCannotTie) {
  Random rng(11);
  std::size_t face = 0, edge_or_vertex = 0, at_the_edge = 0;
  for (int n = 0; n < 40000; ++n) {
    const double size = rng.log_uniform(0.05, 20.0);
    Vec3d v[3] = {rng.unit_vector() * size, rng.unit_vector() * size, {}};
    if (rng.chance(0.2)) v[2] = v[0] + (v[1] - v[0]) * rng.uniform() + rng.unit_vector() * (size * 1e-6);  // a sliver
    // The point of edge (i, j) under the body goes to the origin, or 3 km out.
    const int i = int(rng.uniform(0, 3)) % 3, j = (i + 1) % 3, k = (i + 2) % 3;
    const double along = rng.uniform(-0.05, 1.05);
    const Vec3d shift = (rng.chance(0.25) ? rng.in_cube(3000.0) : Vec3d{}) - (v[i] + (v[j] - v[i]) * along);
    Triangle tri;
    for (int m = 0; m < 3; ++m) tri.v[m] = to_float(v[m] + shift);
    for (int m = 0; m < 3; ++m) v[m] = to_double(tri.v[m]);
    const TriangleShape shape = classify_triangle(v);
    if (shape.kind != TriangleShape::proper) continue;
    const Vec3d& up = shape.normal;
    const Vec3d edge = v[j] - v[i];
    Vec3d inward = cross(up, edge);
    inward = inward / length(inward);
    if (dot(inward, v[k] - v[i]) < 0) inward = -inward;
    const double r = rng.log_uniform(0.05, 1.0);
    const double across = (rng.chance(0.5) ? 1 : -1) * rng.log_uniform(1e-8, 1e-2);
    const double gap = rng.log_uniform(1e-6, 0.1);
    const Vec3d foot = v[i] + edge * along + inward * across + up * (r + gap);
    Vec3d axis = up;
    if (rng.chance(0.5)) axis = axis + rng.unit_vector() * rng.uniform(0, 0.5);
    axis = axis / length(axis);
    Vec3d motion = up * -(gap * rng.uniform(0.5, 3.0));
    if (rng.chance(0.5)) motion = motion + cross(up, rng.unit_vector()) * (gap * rng.uniform(0, 2.0));
    cases::SweepCase c;
    c.capsule = {to_float(foot), to_float(foot + axis * rng.uniform(0.0, 2.0)), float(r)};
    c.motion = to_float(motion);
    c.triangle = tri;
    const detail::Frame f = frame_of(c);
    detail::Best skipping, every;
    detail::sweep_frame(f, skipping);
    detail::sweep_frame_every_part(f, every);
    ASSERT_TRUE(same_bits(skipping.t, every.t)) << "case " << n << ": " << skipping.t << " vs " << every.t;
    ASSERT_TRUE(same_bits(skipping.normal, every.normal)) << "case " << n;
    ASSERT_TRUE(same_bits(skipping.point, every.point)) << "case " << n;
    ASSERT_EQ(skipping.feature, every.feature) << "case " << n;
    face += every.feature == Feature::face;
    edge_or_vertex += every.feature == Feature::edge || every.feature == Feature::vertex;
    // The face met first within a micrometre of the edge's line: where face and edge nearly tie.
    if (every.t > 0 && every.t <= 1 && every.feature == Feature::face) {
      const Vec3d p = every.point - f.v[i], e = f.v[j] - f.v[i];
      at_the_edge += length(p - e * (dot(p, e) / dot(e, e))) < 1e-6;
    }
  }
  // Both the face and its edges come first in many cases, and many contacts are near-ties.
  EXPECT_GT(face, 5000u);
  EXPECT_GT(edge_or_vertex, 5000u);
  EXPECT_GT(at_the_edge, 1000u);
  std::printf("%zu face, %zu edge or vertex; the face within 1 um of the edge %zu times\n", face, edge_or_vertex,
              at_the_edge);
}

}  // namespace
