// The block kernel compiled for each ISA (one translation unit each, see CMakeLists.txt).
#pragma once

#include "simd/block_sweep.h"

namespace capsweep::kernel {

bool block_sweep_sse2(const TriangleBlock& block, const BlockQuery& query, BlockHits& hits);
bool block_sweep_sse4_2(const TriangleBlock& block, const BlockQuery& query, BlockHits& hits);
bool block_sweep_avx2(const TriangleBlock& block, const BlockQuery& query, BlockHits& hits);
bool block_sweep_avx512f(const TriangleBlock& block, const BlockQuery& query, BlockHits& hits);

}  // namespace capsweep::kernel
