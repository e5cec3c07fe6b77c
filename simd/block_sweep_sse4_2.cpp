// The block kernels for sse4_2: 2 lanes of double, 4 of float.
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

BlockSweepVariant sse4_2_variant() {
  return make_variant<xsimd::batch<double, xsimd::sse4_2>, xsimd::batch<float, xsimd::sse4_2>>("sse4_2");
}

}  // namespace capsweep::kernel
