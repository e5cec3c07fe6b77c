// A lane mask as bits (bit k: lane k), the one step xsimd 8.1 does not offer (batch_bool::mask()
// arrived in xsimd 9): so the only intrinsics of the SIMD code are here, one per register width.
#pragma once

#include <cstdint>

#include <immintrin.h>
#include <xsimd/xsimd.hpp>

namespace capsweep::kernel {

inline unsigned lane_bits(const xsimd::batch_bool<float, xsimd::sse2>& b) { return unsigned(_mm_movemask_ps(b)); }
// The lanes set in `keep` and not in `drop`, in one step (a mask of floats and one of links).
inline unsigned lane_bits_unless(const xsimd::batch_bool<float, xsimd::sse2>& keep,
                                 const xsimd::batch_bool<std::uint32_t, xsimd::sse2>& drop) {
  return unsigned(_mm_movemask_ps(_mm_andnot_ps(_mm_castsi128_ps(drop), keep)));
}

// Only where AVX2 code is compiled (a translation unit built with -mavx2).
#if defined(__AVX2__)
inline unsigned lane_bits(const xsimd::batch_bool<float, xsimd::avx2>& b) { return unsigned(_mm256_movemask_ps(b)); }
inline unsigned lane_bits_unless(const xsimd::batch_bool<float, xsimd::avx2>& keep,
                                 const xsimd::batch_bool<std::uint32_t, xsimd::avx2>& drop) {
  return unsigned(_mm256_movemask_ps(_mm256_andnot_ps(_mm256_castsi256_ps(drop), keep)));
}
#endif

}  // namespace capsweep::kernel
