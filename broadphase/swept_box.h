// A capsule's box swept along its motion, as the walks test it against boxes: the BVH's
// nodes eight at a time (child_entry.h), the heightfield's cells four at a time (SweptBoxTest).
// Internal to broadphase/ (keeps xsimd out of the public headers).
#pragma once

#include <cmath>

#include <xsimd/xsimd.hpp>

#include <capsweep/values.h>

#include "simd/box_entry_kernel.h"
#include "simd/child_entry.h"

namespace capsweep {

// The capsule's box moving along its centre segment c -> c + d: a node box grown by the half
// extents h is entered when the segment enters it (a slab test). Float, with h padded so that
// rounding can only make the test pass earlier, never later.
struct SweptBox {
  float c[3], h[3], d[3], inv_d[3];
};

[[gnu::always_inline]] inline SweptBox make_swept_box(const Capsule& capsule, const Vec3& motion, float extra_radius = 0.f) {
  SweptBox s;
  const Vec3 c = (capsule.a + capsule.b) * 0.5f;
  const Vec3 half = Vec3{std::fabs(capsule.b.x - capsule.a.x), std::fabs(capsule.b.y - capsule.a.y),
                         std::fabs(capsule.b.z - capsule.a.z)} * 0.5f;
  const float r = capsule.radius + extra_radius;
  // Relative error of each float step is 2^-24; a few dozen steps stay far below 4e-6.
  const float pad = 4e-6f * (1.f + max_abs_component(c) + max_abs_component(motion) + max_abs_component(half) + r);
  for (int k = 0; k < 3; ++k) {
    s.c[k] = c[k];
    s.h[k] = half[k] + r + pad;
    // A zero component must not make 0 * inf: a huge finite slope keeps the slab test exact.
    const float dk = motion[k];
    s.d[k] = dk;
    s.inv_d[k] = std::fabs(dk) > 1e-30f ? 1.f / dk : 1e30f;
  }
  return s;
}

// The planes of a swept box the slab tests read (child_entry.h says what they are).
[[gnu::always_inline]] inline ChildEntryPlanes child_entry_planes(const SweptBox& s) {
  ChildEntryPlanes p;
  for (int k = 0; k < 3; ++k) {
    p.lo[k] = s.c[k] + s.h[k];
    p.hi[k] = s.c[k] - s.h[k];
    p.inv_d[k] = s.inv_d[k];
  }
  return p;
}

// The slab test of one swept box against four boxes at once (SoA, 16-byte aligned): bit k of
// the answer is set when box k is entered at a time <= limit, and near[k] is that time. The
// heightfield's walk (terrain_walk.h) tests its cells with it; the BVH's nodes (child_entry.h)
// run the same kernel (simd/box_entry_kernel.h) eight boxes wide.
class SweptBoxTest {
 public:
  using F = xsimd::batch<float, xsimd::sse2>;  // baseline x86-64: four boxes per compare
  explicit SweptBoxTest(const SweptBox& s) : SweptBoxTest(child_entry_planes(s)) {}
  explicit SweptBoxTest(const ChildEntryPlanes& p) : planes_(p) {}

  unsigned enter(const float* min_x, const float* min_y, const float* min_z, const float* max_x, const float* max_y,
                 const float* max_z, float limit, float near[4]) const {
    return kernel::enter_boxes(planes_, min_x, min_y, min_z, max_x, max_y, max_z, limit, near);
  }

 private:
  kernel::BoxEntryPlanes<F> planes_;
};

}  // namespace capsweep
