// The block kernels for avx512f: 8 lanes of double; the rejection stage keeps AVX2's 8 floats (a block has 8 lanes).
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

BlockSweepVariant avx512f_variant() {
  return make_variant<xsimd::batch<double, xsimd::avx512f>, xsimd::batch<float, xsimd::avx2>>("avx512f");
}

}  // namespace capsweep::kernel
