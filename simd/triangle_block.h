// Triangles eight to a block in SoA: the compact form the BVH's leaves hold, and the double
// form the full sweep kernel reads.
#pragma once

#include <cstdint>
#include <span>

#include <capsweep/values.h>

namespace capsweep {

inline constexpr int kBlockLanes = 8;

// A leaf of the BVH, as the rejection stage reads it: float vertices (the mesh's own numbers,
// so exact) and the indices. No normal is stored (issue 13: the BVH within 64 bytes a
// triangle): the rejection stage crosses two edges in float (compact_live_mask), and the full
// kernel's exact normals are computed again for the few lanes that survive rejection, when
// their kernel block is completed (complete_normals). Both cost less than the memory the 12
// or 24 bytes a triangle would take.
// An unused lane holds a copy of lane 0 (finite arithmetic, no special cases in the kernels)
// and triangle == kNoTriangle, which the kernels report as a miss.
struct alignas(32) TriangleBlock {
  float x0[kBlockLanes], y0[kBlockLanes], z0[kBlockLanes];
  float x1[kBlockLanes], y1[kBlockLanes], z1[kBlockLanes];
  float x2[kBlockLanes], y2[kBlockLanes], z2[kBlockLanes];
  std::uint32_t triangle[kBlockLanes];  // index in the world's soup, or kNoTriangle

  bool valid(int lane) const { return triangle[lane] != kNoTriangle; }
  Triangle get(int lane) const {
    return Triangle{{Vec3(x0[lane], y0[lane], z0[lane]), Vec3(x1[lane], y1[lane], z1[lane]),
                     Vec3(x2[lane], y2[lane], z2[lane])}};
  }
};
static_assert(sizeof(TriangleBlock) == 320, "10 x 8 floats or indices, each row one AVX2 register: five cache lines");

// What the full kernel reads: eight triangles in double, gathered from the lanes of one or more
// blocks that survived rejection.
struct alignas(64) KernelBlock {
  double x0[kBlockLanes], y0[kBlockLanes], z0[kBlockLanes];
  double x1[kBlockLanes], y1[kBlockLanes], z1[kBlockLanes];
  double x2[kBlockLanes], y2[kBlockLanes], z2[kBlockLanes];
  double nx[kBlockLanes], ny[kBlockLanes], nz[kBlockLanes];
  std::uint32_t triangle[kBlockLanes];

  bool valid(int lane) const { return triangle[lane] != kNoTriangle; }
};
static_assert(sizeof(KernelBlock) == 832, "12 x 8 doubles, 8 indices, padded to a cache line");

// Packs 1 to kBlockLanes triangles; `indices` are their positions in `soup`.
TriangleBlock make_block(std::span<const Triangle> soup, std::span<const std::uint32_t> indices);
// The same one lane at a time: lane `lane` holds triangle t, named `triangle`; then
// close_block makes lanes [used, kBlockLanes) unused copies of lane 0. make_block is exactly
// these calls.
void set_block_lane(TriangleBlock& block, int lane, const Triangle& t, std::uint32_t triangle);
void close_block(TriangleBlock& block, int used);

// Copies lane `from` of a block into lane `to` of a kernel block: its vertices and index (the
// normal comes with complete_normals).
void gather_lane(const TriangleBlock& block, int from, KernelBlock& out, int to);
// Copies lane `from` of a kernel block into lane `to` of another (vertices, index and normal).
void copy_lane(const KernelBlock& block, int from, KernelBlock& out, int to);
// Marks lanes [used, kBlockLanes) of a kernel block unused (copies of lane 0).
void close_lanes(KernelBlock& out, int used);
// Every lane of a block, as the full kernel reads it (normals completed, one lane at a time).
KernelBlock widen(const TriangleBlock& block);
// The exact normals of a kernel block's lanes from their vertices, one lane at a time with
// classify_triangle (the spec; BlockSweepVariant::complete does the same eight at a time).
void complete_normals_scalar(KernelBlock& block);

}  // namespace capsweep
