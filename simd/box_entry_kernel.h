// The slab test of a swept box against boxes in SoA, written once over xsimd batches: the BVH
// node test (child_entry.h) runs it on eight boxes (one AVX2 register, or two SSE2 halves), the
// heightfield's walk on four cells (broadphase/swept_box.h: SweptBoxTest). Its scalar twin is
// child_entry_scalar. Included only by translation units compiled for the batch's ISA.
#pragma once

#include "simd/child_entry.h"
#include "simd/lane_bits.h"

namespace capsweep::kernel {

// The planes of child_entry.h broadcast to every lane, once per swept box.
template <class F>
struct BoxEntryPlanes {
  F lo_x, lo_y, lo_z, hi_x, hi_y, hi_z, ix, iy, iz;
  explicit BoxEntryPlanes(const ChildEntryPlanes& p)
      : lo_x(p.lo[0]), lo_y(p.lo[1]), lo_z(p.lo[2]), hi_x(p.hi[0]), hi_y(p.hi[1]), hi_z(p.hi[2]),
        ix(p.inv_d[0]), iy(p.inv_d[1]), iz(p.inv_d[2]) {}
};

// F::size boxes (aligned SoA rows): the lanes whose box is entered at a time in [0, 1] no later
// than `limit` (a mask), each one's time stored in near[k]. minps/maxps keep their operand order
// (the twin's ?:), so every width gives the twin's bits, NaN included.
template <class F>
[[gnu::always_inline]] inline auto entered_boxes(const BoxEntryPlanes<F>& p, const float* min_x, const float* min_y,
                                                 const float* min_z, const float* max_x, const float* max_y,
                                                 const float* max_z, float limit, float* near) {
  const F lx = (F::load_aligned(min_x) - p.lo_x) * p.ix, ux = (F::load_aligned(max_x) - p.hi_x) * p.ix;
  const F ly = (F::load_aligned(min_y) - p.lo_y) * p.iy, uy = (F::load_aligned(max_y) - p.hi_y) * p.iy;
  const F lz = (F::load_aligned(min_z) - p.lo_z) * p.iz, uz = (F::load_aligned(max_z) - p.hi_z) * p.iz;
  const F zero(0.f), one(1.f);
  const F t_near = xsimd::max(xsimd::max(xsimd::min(lx, ux), xsimd::min(ly, uy)), xsimd::max(xsimd::min(lz, uz), zero));
  const F t_far = xsimd::min(xsimd::min(xsimd::max(lx, ux), xsimd::max(ly, uy)), xsimd::min(xsimd::max(lz, uz), one));
  t_near.store_unaligned(near);
  return (t_near <= t_far) && (t_near <= F(limit));
}

// The same as bits (bit k: box k), for the heightfield's four cells.
template <class F>
[[gnu::always_inline]] inline unsigned enter_boxes(const BoxEntryPlanes<F>& p, const float* min_x, const float* min_y,
                                                   const float* min_z, const float* max_x, const float* max_y,
                                                   const float* max_z, float limit, float* near) {
  return lane_bits(entered_boxes(p, min_x, min_y, min_z, max_x, max_y, max_z, limit, near));
}

// child_entry.h's contract, WideNode::kWidth / F::size registers at a time; unused slots dropped.
template <class F>
[[gnu::always_inline]] inline unsigned child_entry(const ChildEntryPlanes& planes, const WideNode& n, float limit,
                                                   float* near) {
  using U = xsimd::batch<std::uint32_t, typename F::arch_type>;
  static_assert(WideNode::kWidth % F::size == 0);
  const BoxEntryPlanes<F> p(planes);
  unsigned bits = 0;
  for (int first = 0; first < WideNode::kWidth; first += int(F::size)) {
    const auto entered = entered_boxes(p, n.min_x + first, n.min_y + first, n.min_z + first, n.max_x + first,
                                       n.max_y + first, n.max_z + first, limit, near + first);
    bits |= lane_bits_unless(entered, U::load_aligned(n.child + first) == U(WideNode::kEmpty)) << first;
  }
  return bits;
}

}  // namespace capsweep::kernel
