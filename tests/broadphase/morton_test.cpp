// Morton codes: the order along each axis is kept, axes interleave, anything outside the box
// (or NaN) is clamped instead of wrapping.
#include "broadphase/morton.h"

#include <gtest/gtest.h>

#include <limits>

namespace {

using namespace capsweep;

const Aabb kBox{{-10, -10, -10}, {10, 10, 10}};

TEST(Morton, KeepsTheOrderAlongEachAxis) {
  for (int k = 0; k < 3; ++k) {
    std::uint64_t previous = 0;
    for (float x = -10; x <= 10; x += 0.25f) {
      Vec3 p{0, 0, 0};
      (k == 0 ? p.x : k == 1 ? p.y : p.z) = x;
      const std::uint64_t code = morton_code(kBox, p);
      if (x > -10) {
        EXPECT_GT(code, previous) << "axis " << k << " at " << x;
      }
      previous = code;
    }
  }
}

TEST(Morton, InterleavesTheAxes) {
  EXPECT_EQ(spread_bits_3d(0b111), 0b1001001u);
  EXPECT_EQ(spread_bits_3d(0x1FFFFF), 0x1249249249249249ull);
  EXPECT_EQ(morton_code(kBox, {-10, -10, -10}), 0u);
  EXPECT_EQ(morton_code(kBox, {10, 10, 10}), 0x7FFFFFFFFFFFFFFFull);
}

TEST(Morton, ClampsOutsidePointsAndNaN) {
  EXPECT_EQ(morton_code(kBox, {-1e30f, -20, -11}), 0u);
  EXPECT_EQ(morton_code(kBox, {1e30f, 20, 11}), morton_code(kBox, {10, 10, 10}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(morton_code(kBox, {nan, nan, nan}), 0u);
  const Aabb flat{{0, 0, 0}, {1, 0, 1}};  // zero extent on y
  EXPECT_EQ(morton_code(flat, {0, 5, 0}), 0u);
}

}  // namespace
