// The exact sweep's shortcuts: skipping the parts of the rounded prism that cannot be entered
// before the best contact found so far, and the start's closest points when the axis lies beyond
// reach of the triangle's plane, changes no bit of the answer (core/sweep_frame.h).
#include <gtest/gtest.h>

#include <bit>
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
  const Vec3d origin = to_double(swept.a);
  detail::Frame f;
  f.e = to_double(swept.b) - origin;
  f.d = to_double(c.motion);
  f.r = swept.radius;
  for (int i = 0; i < 3; ++i) f.v[i] = to_double(c.triangle.v[i]) - origin;
  f.shape = classify_triangle(f.v);
  return f;
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

}  // namespace
