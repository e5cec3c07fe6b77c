// The block kernels for sse2: 2 lanes of double, 4 of float: the x86-64 baseline.
#include "simd/block_sweep_isa.h"
#include "simd/block_sweep_kernel.h"

namespace capsweep::kernel {

bool block_sweep_sse2(const KernelBlock& block, const BlockQuery& query, BlockHits& hits) {
  return sweep_block<xsimd::batch<double, xsimd::sse2>>(block, query, hits);
}

bool block_pooled_sse2(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits) {
  return sweep_pooled<xsimd::batch<double, xsimd::sse2>>(block, queries, hits);
}

std::uint32_t block_live_sse2(const TriangleBlock& block, const BlockQuery& query) {
  return live_lanes<xsimd::batch<float, xsimd::sse2>>(block, query);
}

int kernel_group_sse2() { return lane_count<xsimd::batch<double, xsimd::sse2>>(); }

void complete_normals_sse2(KernelBlock& block) { complete_normals<xsimd::batch<double, xsimd::sse2>>(block); }

}  // namespace capsweep::kernel
