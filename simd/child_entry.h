// The slab test of a swept box against the eight child boxes of a BVH node, the walk's step
// (broadphase/traverse.h). One kernel (box_entry_kernel.h) compiled per instruction set, picked
// once, and a scalar twin: every variant gives the same bits and the same entry times, so the walk
// visits the same leaves in the same order whichever runs.
#pragma once

#include <cstdint>
#include <vector>

#include "simd/wide_node.h"

namespace capsweep {

// A swept box (broadphase/swept_box.h: SweptBox) as the test reads it: a child box grown by the half
// extents h is entered along c -> c + d at (min - (c + h)) / d and left at (max - (c - h)) / d
// per axis, the divisions done once as products with inv_d.
struct ChildEntryPlanes {
  float lo[3];     // c + h
  float hi[3];     // c - h
  float inv_d[3];  // 1 / d (a huge finite slope where d is zero)
};

// Bit k set: child k is used (not WideNode::kEmpty) and its box is entered at a time in [0, 1]
// no later than `limit`; near[k] is that time for every k (near needs 8 floats, 32-byte aligned).
using ChildEntryFn = unsigned (*)(const ChildEntryPlanes& p, const WideNode& node, float limit, float* near);

unsigned child_entry_scalar(const ChildEntryPlanes& p, const WideNode& node, float limit, float* near);  // the twin
unsigned child_entry_sse2(const ChildEntryPlanes& p, const WideNode& node, float limit, float* near);    // two halves of 4
unsigned child_entry_avx2(const ChildEntryPlanes& p, const WideNode& node, float limit, float* near);    // AVX2 CPUs only

struct ChildEntryVariant {
  const char* isa;
  ChildEntryFn fn;
};
// AVX2 where the block kernels run AVX2 (best_block_sweep: so CAPSWEEP_ISA picks this too),
// else SSE2 (baseline x86-64). Chosen once.
ChildEntryFn best_child_entry();
// Every variant this CPU runs, the scalar twin last (for tests).
std::vector<ChildEntryVariant> child_entry_variants();

}  // namespace capsweep
