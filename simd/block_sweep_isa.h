// The block kernels (block_sweep_kernel.h) compiled for each ISA, one translation unit each with
// only that ISA's -m flags (CMakeLists.txt); best_block_sweep picks among them.
#pragma once

#include "simd/block_sweep.h"

namespace capsweep::kernel {

BlockSweepVariant sse2_variant();     // 2 doubles, 4 floats: the x86-64 baseline
BlockSweepVariant sse4_2_variant();   // 2 doubles, 4 floats
BlockSweepVariant avx2_variant();     // 4 doubles, 8 floats
BlockSweepVariant avx512f_variant();  // 8 doubles; AVX2's 8 floats (a block has 8 lanes)

}  // namespace capsweep::kernel
