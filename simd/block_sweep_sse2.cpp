// The block kernels for sse2: 2 lanes of double, 4 of float: the x86-64 baseline.
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

BlockSweepVariant sse2_variant() {
  return make_variant<xsimd::batch<double, xsimd::sse2>, xsimd::batch<float, xsimd::sse2>>("sse2");
}

}  // namespace capsweep::kernel
