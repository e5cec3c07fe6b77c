#include "broadphase/child_entry.h"

#include <string_view>

#include <emmintrin.h>
#include <xsimd/xsimd.hpp>

#include "simd/block_sweep.h"

namespace capsweep {

namespace {

// minps / maxps: the second operand unless the first is strictly less (greater).
float min_ps(float a, float b) { return a < b ? a : b; }
float max_ps(float a, float b) { return a > b ? a : b; }

// Four children [first, first + 4) with SSE2: the same operations, in the same order, as the
// twin and the AVX2 variant.
unsigned four(const ChildEntryPlanes& p, const WideNode& n, int first, float limit, float* near) {
  const __m128 lx = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(n.min_x + first), _mm_set1_ps(p.lo[0])), _mm_set1_ps(p.inv_d[0]));
  const __m128 ly = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(n.min_y + first), _mm_set1_ps(p.lo[1])), _mm_set1_ps(p.inv_d[1]));
  const __m128 lz = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(n.min_z + first), _mm_set1_ps(p.lo[2])), _mm_set1_ps(p.inv_d[2]));
  const __m128 ux = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(n.max_x + first), _mm_set1_ps(p.hi[0])), _mm_set1_ps(p.inv_d[0]));
  const __m128 uy = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(n.max_y + first), _mm_set1_ps(p.hi[1])), _mm_set1_ps(p.inv_d[1]));
  const __m128 uz = _mm_mul_ps(_mm_sub_ps(_mm_load_ps(n.max_z + first), _mm_set1_ps(p.hi[2])), _mm_set1_ps(p.inv_d[2]));
  const __m128 t_near = _mm_max_ps(_mm_max_ps(_mm_min_ps(lx, ux), _mm_min_ps(ly, uy)), _mm_max_ps(_mm_min_ps(lz, uz), _mm_setzero_ps()));
  const __m128 t_far = _mm_min_ps(_mm_min_ps(_mm_max_ps(lx, ux), _mm_max_ps(ly, uy)), _mm_min_ps(_mm_max_ps(lz, uz), _mm_set1_ps(1.f)));
  const __m128 entered = _mm_and_ps(_mm_cmple_ps(t_near, t_far), _mm_cmple_ps(t_near, _mm_set1_ps(limit)));
  const __m128i empty = _mm_cmpeq_epi32(_mm_load_si128(reinterpret_cast<const __m128i*>(n.child + first)), _mm_set1_epi32(-1));
  _mm_store_ps(near + first, t_near);
  return unsigned(_mm_movemask_ps(_mm_andnot_ps(_mm_castsi128_ps(empty), entered)));
}

}  // namespace

unsigned child_entry_scalar(const ChildEntryPlanes& p, const WideNode& n, float limit, float* near) {
  unsigned bits = 0;
  for (int k = 0; k < WideNode::kWidth; ++k) {
    const float lx = (n.min_x[k] - p.lo[0]) * p.inv_d[0], ux = (n.max_x[k] - p.hi[0]) * p.inv_d[0];
    const float ly = (n.min_y[k] - p.lo[1]) * p.inv_d[1], uy = (n.max_y[k] - p.hi[1]) * p.inv_d[1];
    const float lz = (n.min_z[k] - p.lo[2]) * p.inv_d[2], uz = (n.max_z[k] - p.hi[2]) * p.inv_d[2];
    const float t_near = max_ps(max_ps(min_ps(lx, ux), min_ps(ly, uy)), max_ps(min_ps(lz, uz), 0.f));
    const float t_far = min_ps(min_ps(max_ps(lx, ux), max_ps(ly, uy)), min_ps(max_ps(lz, uz), 1.f));
    near[k] = t_near;
    if (n.child[k] != WideNode::kEmpty && t_near <= t_far && t_near <= limit) bits |= 1u << k;
  }
  return bits;
}

unsigned child_entry_sse2(const ChildEntryPlanes& p, const WideNode& n, float limit, float* near) {
  static_assert(WideNode::kWidth == 8);
  return four(p, n, 0, limit, near) | four(p, n, 4, limit, near) << 4;
}

ChildEntryFn best_child_entry() {
  static const ChildEntryFn chosen = [] {
    // AVX-512 implies AVX2 on every real CPU; a VM may mask CPUID bits one by one.
    const std::string_view isa = best_block_sweep().isa;
    const bool avx2 = (isa == "avx2" || isa == "avx512f") && xsimd::available_architectures().avx2;
    return avx2 ? child_entry_avx2 : child_entry_sse2;
  }();
  return chosen;
}

std::vector<ChildEntryVariant> child_entry_variants() {
  std::vector<ChildEntryVariant> out;
  if (xsimd::available_architectures().avx2) out.push_back({"avx2", child_entry_avx2});
  out.push_back({"sse2", child_entry_sse2});
  out.push_back({"scalar", child_entry_scalar});
  return out;
}

}  // namespace capsweep
