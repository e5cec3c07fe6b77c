// apart_upright: the rejection World::move runs before each exact capsule-capsule sweep and
// contact between agents. It may only ever skip pairs the exact kernels say do not touch.
#include <gtest/gtest.h>

#include <cmath>

#include "broadphase/upright_pairs.h"
#include "core/random.h"
#include <capsweep/sweep.h>

namespace {

using namespace capsweep;

Capsule upright(float x, float y, float z, float height, float r) { return {{x, y, z}, {x, y + height, z}, r}; }

TEST(UprightPairs, NeverSkipsAPairTheExactSweepTouches) {
  Random rng(17);
  int skipped = 0;
  for (int i = 0; i < 200000; ++i) {
    // Near the origin and 5 km out; side by side, at any height, and grazing: the other agent
    // is placed at the reach +- a few tolerances from the moving one's path.
    const float far = i % 4 == 0 ? 5000.f : 0.f;
    const float r = float(rng.uniform(0.05, 0.6)), q = float(rng.uniform(0.05, 0.6));
    // Drawn last argument first, as g++ evaluated them when they were upright's arguments (C++
    // leaves the order open: clang's would meet other pairs than the normal build).
    const float len = float(rng.uniform(0, 2)), az = float(rng.uniform(-1, 1)), ay = float(rng.uniform(-1, 1));
    const Capsule a = upright(far + float(rng.uniform(-1, 1)), ay, az, len, r);
    const Vec3 d = i % 5 == 0 ? Vec3{} : Vec3{float(rng.uniform(-1, 1)), float(rng.uniform(-0.5, 0.5)), float(rng.uniform(-1, 1))};
    const double along = rng.uniform(-0.2, 1.2), angle = rng.uniform(0, 6.283185307179586);
    const double gap = double(r) + q + (i % 2 ? rng.uniform(-3e-4, 3e-4) : rng.uniform(-0.5, 1.5));
    const double cx = double(a.a.x) + along * d.x + gap * std::cos(angle);
    const double cz = double(a.a.z) + along * d.z + gap * std::sin(angle);
    const float b_len = float(rng.uniform(0, 2)), by = float(rng.uniform(-2, 2));  // as above
    const Capsule b = upright(float(cx), by, float(cz), b_len, q);
    if (!apart_upright(a, d, b)) {
      continue;
    }
    ++skipped;
    SweepHit h;
    ASSERT_EQ(sweep_capsule_capsule(a, d, b, h), Status::ok);
    ASSERT_FALSE(h.hit) << "case " << i << ": skipped a pair the sweep touches at t = " << h.t;
    Contact k;
    capsule_capsule_contact(a, b, k);
    ASSERT_GE(k.distance, double(r) + q) << "case " << i;
  }
  EXPECT_GT(skipped, 50000);  // it does skip: most pairs are side by side and apart
}

TEST(UprightPairs, LeavesEveryOtherPoseToTheExactSweep) {
  // A tilted axis, or either capsule not upright: never skipped, however far apart.
  const Capsule upright_one = upright(0, 0, 0, 1, 0.3f);
  const Capsule tilted{{10, 0, 0}, {10.001f, 1, 0}, 0.3f};
  EXPECT_FALSE(apart_upright(upright_one, {0.1f, 0, 0}, tilted));
  EXPECT_FALSE(apart_upright(tilted, {0.1f, 0, 0}, upright_one));
  // Upright and 10 m apart: skipped; touching along the way: kept.
  EXPECT_TRUE(apart_upright(upright_one, {0.1f, 0, 0}, upright(10, 0, 0, 1, 0.3f)));
  EXPECT_FALSE(apart_upright(upright_one, {10, 0, 0}, upright(5, 0, 0.5f, 1, 0.3f)));
  // Exactly at the reach, or within the tolerance of it: kept.
  EXPECT_FALSE(apart_upright(upright_one, {}, upright(0.6f, 5, 0, 1, 0.3f)));
  EXPECT_FALSE(apart_upright(upright_one, {}, upright(0.60005f, 5, 0, 1, 0.3f)));
}

}  // namespace
