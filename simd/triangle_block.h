// Triangles packed eight to a block in SoA, the unit the wide kernels work on.
#pragma once

#include <cstdint>
#include <span>

#include "core/shapes.h"
#include "core/sweep_hit.h"

namespace capsweep {

inline constexpr int kBlockLanes = 8;

// Vertices and normals are stored in double: the wide kernels compute in the same precision as
// the scalar core, so one exactness argument covers both. An unused lane holds a copy of lane 0
// (finite arithmetic, no special cases in the kernel) and triangle == kNoTriangle, which the
// kernels report as a miss.
struct alignas(64) TriangleBlock {
  double x0[kBlockLanes], y0[kBlockLanes], z0[kBlockLanes];
  double x1[kBlockLanes], y1[kBlockLanes], z1[kBlockLanes];
  double x2[kBlockLanes], y2[kBlockLanes], z2[kBlockLanes];
  // Unit normal by the winding, as classify_triangle gives it; 0 for a triangle that collapses
  // to a segment or point (then the kernels see only its edges and corners).
  double nx[kBlockLanes], ny[kBlockLanes], nz[kBlockLanes];
  std::uint32_t triangle[kBlockLanes];  // index in the world's soup, or kNoTriangle

  bool valid(int lane) const { return triangle[lane] != kNoTriangle; }
  Triangle get(int lane) const;
};
static_assert(sizeof(TriangleBlock) == 832, "12 x 8 doubles, 8 indices, padded to a cache line");

// Packs up to kBlockLanes triangles; `indices` are their positions in `soup`.
TriangleBlock make_block(std::span<const Triangle> soup, std::span<const std::uint32_t> indices);

}  // namespace capsweep
