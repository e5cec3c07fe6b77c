// A capsule's box swept along its motion, as the walks test it against boxes: the BVH's
// nodes eight at a time (child_entry.h), the heightfield's cells four at a time (SweptBoxTest).
// Internal to broadphase/ (keeps xsimd out of the public headers).
#pragma once

#include <cmath>

#include <emmintrin.h>
#include <xsimd/xsimd.hpp>

#include <capsweep/shapes.h>

#include "broadphase/child_entry.h"

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
// heightfield's walk (terrain_walk.h) tests its cells with it; the BVH's nodes use child_entry.h,
// the same arithmetic eight boxes wide.
class SweptBoxTest {
 public:
  using F = xsimd::batch<float, xsimd::sse2>;  // baseline x86-64: four boxes per compare
  explicit SweptBoxTest(const SweptBox& s) : SweptBoxTest(child_entry_planes(s)) {}
  explicit SweptBoxTest(const ChildEntryPlanes& p)
      : lo_x(p.lo[0]), lo_y(p.lo[1]), lo_z(p.lo[2]), hi_x(p.hi[0]), hi_y(p.hi[1]), hi_z(p.hi[2]),
        ix(p.inv_d[0]), iy(p.inv_d[1]), iz(p.inv_d[2]) {}

  unsigned enter(const float* min_x, const float* min_y, const float* min_z, const float* max_x, const float* max_y,
                 const float* max_z, float limit, float near[4]) const {
    const F lx = (F::load_aligned(min_x) - lo_x) * ix, ux = (F::load_aligned(max_x) - hi_x) * ix;
    const F ly = (F::load_aligned(min_y) - lo_y) * iy, uy = (F::load_aligned(max_y) - hi_y) * iy;
    const F lz = (F::load_aligned(min_z) - lo_z) * iz, uz = (F::load_aligned(max_z) - hi_z) * iz;
    const F zero(0.f), one(1.f);
    const F t_near = xsimd::max(xsimd::max(xsimd::min(lx, ux), xsimd::min(ly, uy)), xsimd::max(xsimd::min(lz, uz), zero));
    const F t_far = xsimd::min(xsimd::min(xsimd::max(lx, ux), xsimd::max(ly, uy)), xsimd::min(xsimd::max(lz, uz), one));
    const auto entered = (t_near <= t_far) && (t_near <= F(limit));
    t_near.store_unaligned(near);
    return unsigned(_mm_movemask_ps(entered));
  }

 private:
  F lo_x, lo_y, lo_z, hi_x, hi_y, hi_z, ix, iy, iz;
};

}  // namespace capsweep
