// child_entry for AVX2 (compiled with -mavx2; called only where the CPU runs it): the eight
// children in one register per bound.
#include "simd/box_entry_kernel.h"

namespace capsweep {

unsigned child_entry_avx2(const ChildEntryPlanes& p, const WideNode& n, float limit, float* near) {
  return kernel::child_entry<xsimd::batch<float, xsimd::avx2>>(p, n, limit, near);
}

}  // namespace capsweep
