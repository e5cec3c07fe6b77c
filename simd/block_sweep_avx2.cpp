// The block kernels for avx2: 4 lanes of double, 8 of float.
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

BlockSweepVariant avx2_variant() {
  return make_variant<xsimd::batch<double, xsimd::avx2>, xsimd::batch<float, xsimd::avx2>>("avx2");
}

}  // namespace capsweep::kernel
