// The block kernels for avx512f: 8 lanes of double; the rejection stage keeps AVX2's 8 floats (a block has 8 lanes).
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

bool block_sweep_avx512f(const KernelBlock& block, const BlockQuery& query, BlockHits& hits) {
  return sweep_block<xsimd::batch<double, xsimd::avx512f>>(block, query, hits);
}

bool block_pooled_avx512f(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits) {
  return sweep_pooled<xsimd::batch<double, xsimd::avx512f>>(block, queries, hits);
}

std::uint32_t block_live_avx512f(const TriangleBlock& block, const BlockQuery& query) {
  return live_lanes<xsimd::batch<float, xsimd::avx2>>(block, query);
}

int kernel_group_avx512f() { return lane_count<xsimd::batch<double, xsimd::avx512f>>(); }

void complete_normals_avx512f(KernelBlock& block) { complete_normals<xsimd::batch<double, xsimd::avx512f>>(block); }

}  // namespace capsweep::kernel
