// The BVH's node as the walks read it: a layout, beside the triangle blocks it points to
// (triangle_block.h), so that the node test (child_entry.h) is a SIMD kernel like the others.
#pragma once

#include <cstdint>

namespace capsweep {

// Eight children's boxes in SoA, so one AVX2 compare tests all eight (child_entry.h). Eight, not
// four: a walk takes fewer steps, each one compare (docs/ARCHITECTURE.md). A slot is unused when
// its link is kEmpty (its box is then zero).
struct alignas(32) WideNode {
  static constexpr int kWidth = 8;
  static constexpr std::uint32_t kLeaf = 0x80000000u;   // set: the rest is a block index
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // unused child slot
  float min_x[kWidth], min_y[kWidth], min_z[kWidth];
  float max_x[kWidth], max_y[kWidth], max_z[kWidth];
  std::uint32_t child[kWidth];  // inner node index, kLeaf | block index, or kEmpty

  bool used(int k) const { return child[k] != kEmpty; }
};
static_assert(sizeof(WideNode) == 224, "six float[8] bounds and eight child links: seven 32-byte rows, no padding");

}  // namespace capsweep
