// The block kernels for sse4_2: 2 lanes of double, 4 of float.
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

bool block_sweep_sse4_2(const KernelBlock& block, const BlockQuery& query, BlockHits& hits) {
  return sweep_block<xsimd::batch<double, xsimd::sse4_2>>(block, query, hits);
}

bool block_pooled_sse4_2(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits) {
  return sweep_pooled<xsimd::batch<double, xsimd::sse4_2>>(block, queries, hits);
}

std::uint32_t block_live_sse4_2(const TriangleBlock& block, const BlockQuery& query) {
  return live_lanes<xsimd::batch<float, xsimd::sse4_2>>(block, query);
}

int kernel_group_sse4_2() { return lane_count<xsimd::batch<double, xsimd::sse4_2>>(); }

void complete_normals_sse4_2(KernelBlock& block) { complete_normals<xsimd::batch<double, xsimd::sse4_2>>(block); }

}  // namespace capsweep::kernel
