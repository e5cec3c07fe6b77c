#include "simd/triangle_block.h"

#include "core/assert.h"

#include <stdexcept>

#include "core/closest_point.h"

namespace capsweep {

void set_block_lane(TriangleBlock& block, int lane, const Triangle& t, std::uint32_t triangle) {
  CAPSWEEP_ASSERT(lane >= 0 && lane < kBlockLanes, "a lane of the block");
  block.x0[lane] = t.v[0].x, block.y0[lane] = t.v[0].y, block.z0[lane] = t.v[0].z;
  block.x1[lane] = t.v[1].x, block.y1[lane] = t.v[1].y, block.z1[lane] = t.v[1].z;
  block.x2[lane] = t.v[2].x, block.y2[lane] = t.v[2].y, block.z2[lane] = t.v[2].z;
  block.triangle[lane] = triangle;
}

void close_block(TriangleBlock& block, int used) {
  CAPSWEEP_ASSERT(used >= 1 && used <= kBlockLanes, "a block holds 1 to 8 triangles");
  for (int lane = used; lane < kBlockLanes; ++lane) {
    block.x0[lane] = block.x0[0], block.y0[lane] = block.y0[0], block.z0[lane] = block.z0[0];
    block.x1[lane] = block.x1[0], block.y1[lane] = block.y1[0], block.z1[lane] = block.z1[0];
    block.x2[lane] = block.x2[0], block.y2[lane] = block.y2[0], block.z2[lane] = block.z2[0];
    block.triangle[lane] = kNoTriangle;
  }
}

TriangleBlock make_block(std::span<const Triangle> soup, std::span<const std::uint32_t> indices) {
  if (indices.empty() || indices.size() > std::size_t(kBlockLanes)) {
    throw std::invalid_argument("make_block: a block holds 1 to 8 triangles");
  }
  TriangleBlock block;
  for (std::size_t lane = 0; lane < indices.size(); ++lane) {
    set_block_lane(block, int(lane), soup[indices[lane]], indices[lane]);
  }
  close_block(block, int(indices.size()));
  return block;
}

namespace {

// Lane i of a compact or kernel block into lane j of a kernel block: vertices and index.
template <class Block>
void put_lane(const Block& b, int i, KernelBlock& out, int j) {
  CAPSWEEP_ASSERT(i >= 0 && i < kBlockLanes && j >= 0 && j < kBlockLanes, "a lane into a lane");
  out.x0[j] = b.x0[i], out.y0[j] = b.y0[i], out.z0[j] = b.z0[i];
  out.x1[j] = b.x1[i], out.y1[j] = b.y1[i], out.z1[j] = b.z1[i];
  out.x2[j] = b.x2[i], out.y2[j] = b.y2[i], out.z2[j] = b.z2[i];
  out.triangle[j] = b.triangle[i];
}

}  // namespace

void gather_lane(const TriangleBlock& b, int i, KernelBlock& out, int j) { put_lane(b, i, out, j); }

void copy_lane(const KernelBlock& b, int i, KernelBlock& out, int j) {
  put_lane(b, i, out, j);
  out.nx[j] = b.nx[i], out.ny[j] = b.ny[i], out.nz[j] = b.nz[i];
}

void close_lanes(KernelBlock& o, int used) {
  for (int j = used; j < kBlockLanes; ++j) {
    o.x0[j] = o.x0[0], o.y0[j] = o.y0[0], o.z0[j] = o.z0[0];
    o.x1[j] = o.x1[0], o.y1[j] = o.y1[0], o.z1[j] = o.z1[0];
    o.x2[j] = o.x2[0], o.y2[j] = o.y2[0], o.z2[j] = o.z2[0];
    o.triangle[j] = kNoTriangle;
  }
}

void complete_normals_scalar(KernelBlock& b) {
  for (int lane = 0; lane < kBlockLanes; ++lane) {
    const Vec3d v[3] = {{b.x0[lane], b.y0[lane], b.z0[lane]}, {b.x1[lane], b.y1[lane], b.z1[lane]},
                        {b.x2[lane], b.y2[lane], b.z2[lane]}};
    const TriangleShape shape = classify_triangle(v);
    const Vec3d n = shape.kind == TriangleShape::proper ? shape.normal : Vec3d{};
    b.nx[lane] = n.x, b.ny[lane] = n.y, b.nz[lane] = n.z;
  }
}

KernelBlock widen(const TriangleBlock& block) {
  KernelBlock out;
  for (int lane = 0; lane < kBlockLanes; ++lane) gather_lane(block, lane, out, lane);
  complete_normals_scalar(out);
  return out;
}

}  // namespace capsweep
