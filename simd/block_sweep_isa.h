// The block kernels compiled for each ISA (one translation unit each, see CMakeLists.txt): the
// full kernel over doubles, the rejection stage over floats (8 lanes where AVX2 has them).
#pragma once

#include "simd/block_sweep.h"

namespace capsweep::kernel {

bool block_sweep_sse2(const KernelBlock& block, const BlockQuery& query, BlockHits& hits);
std::uint32_t block_live_sse2(const TriangleBlock& block, const BlockQuery& query);
bool block_pooled_sse2(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits);
void complete_normals_sse2(KernelBlock& block);
int kernel_group_sse2();  // doubles the full kernel sweeps at once
bool block_sweep_sse4_2(const KernelBlock& block, const BlockQuery& query, BlockHits& hits);
std::uint32_t block_live_sse4_2(const TriangleBlock& block, const BlockQuery& query);
bool block_pooled_sse4_2(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits);
void complete_normals_sse4_2(KernelBlock& block);
int kernel_group_sse4_2();  // doubles the full kernel sweeps at once
bool block_sweep_avx2(const KernelBlock& block, const BlockQuery& query, BlockHits& hits);
std::uint32_t block_live_avx2(const TriangleBlock& block, const BlockQuery& query);
bool block_pooled_avx2(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits);
void complete_normals_avx2(KernelBlock& block);
int kernel_group_avx2();  // doubles the full kernel sweeps at once
bool block_sweep_avx512f(const KernelBlock& block, const BlockQuery& query, BlockHits& hits);
std::uint32_t block_live_avx512f(const TriangleBlock& block, const BlockQuery& query);
bool block_pooled_avx512f(const KernelBlock& block, const LaneQueries& queries, BlockHits& hits);
void complete_normals_avx512f(KernelBlock& block);
int kernel_group_avx512f();  // doubles the full kernel sweeps at once

}  // namespace capsweep::kernel
