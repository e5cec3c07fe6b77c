// The block kernels for avx2: 4 lanes of double, 8 of float.
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

bool block_sweep_avx2(const KernelBlock& block, const BlockQuery& query, BlockHits& hits) {
  return sweep_block<xsimd::batch<double, xsimd::avx2>>(block, query, hits);
}

bool block_pooled_avx2(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits) {
  return sweep_pooled<xsimd::batch<double, xsimd::avx2>>(block, queries, hits);
}

std::uint32_t block_live_avx2(const TriangleBlock& block, const BlockQuery& query) {
  return live_lanes<xsimd::batch<float, xsimd::avx2>>(block, query);
}

int kernel_group_avx2() { return lane_count<xsimd::batch<double, xsimd::avx2>>(); }

void complete_normals_avx2(KernelBlock& block) { complete_normals<xsimd::batch<double, xsimd::avx2>>(block); }

}  // namespace capsweep::kernel
