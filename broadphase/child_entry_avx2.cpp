// child_entry for AVX2 (compiled with -mavx2; called only where the CPU runs it): the eight
// children in one register per bound.
#include <immintrin.h>

#include "broadphase/child_entry.h"

namespace capsweep {

unsigned child_entry_avx2(const ChildEntryPlanes& p, const WideNode& n, float limit, float* near) {
  static_assert(WideNode::kWidth == 8);
  const __m256 lx = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(n.min_x), _mm256_set1_ps(p.lo[0])), _mm256_set1_ps(p.inv_d[0]));
  const __m256 ly = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(n.min_y), _mm256_set1_ps(p.lo[1])), _mm256_set1_ps(p.inv_d[1]));
  const __m256 lz = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(n.min_z), _mm256_set1_ps(p.lo[2])), _mm256_set1_ps(p.inv_d[2]));
  const __m256 ux = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(n.max_x), _mm256_set1_ps(p.hi[0])), _mm256_set1_ps(p.inv_d[0]));
  const __m256 uy = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(n.max_y), _mm256_set1_ps(p.hi[1])), _mm256_set1_ps(p.inv_d[1]));
  const __m256 uz = _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(n.max_z), _mm256_set1_ps(p.hi[2])), _mm256_set1_ps(p.inv_d[2]));
  const __m256 t_near = _mm256_max_ps(_mm256_max_ps(_mm256_min_ps(lx, ux), _mm256_min_ps(ly, uy)),
                                      _mm256_max_ps(_mm256_min_ps(lz, uz), _mm256_setzero_ps()));
  const __m256 t_far = _mm256_min_ps(_mm256_min_ps(_mm256_max_ps(lx, ux), _mm256_max_ps(ly, uy)),
                                     _mm256_min_ps(_mm256_max_ps(lz, uz), _mm256_set1_ps(1.f)));
  // _CMP_LE_OS: cmpleps's predicate (false when either side is NaN, as the twin's <=).
  const __m256 entered = _mm256_and_ps(_mm256_cmp_ps(t_near, t_far, _CMP_LE_OS), _mm256_cmp_ps(t_near, _mm256_set1_ps(limit), _CMP_LE_OS));
  const __m256i empty = _mm256_cmpeq_epi32(_mm256_load_si256(reinterpret_cast<const __m256i*>(n.child)), _mm256_set1_epi32(-1));
  _mm256_store_ps(near, t_near);
  return unsigned(_mm256_movemask_ps(_mm256_andnot_ps(_mm256_castsi256_ps(empty), entered)));
}

}  // namespace capsweep
