#include "simd/triangle_block.h"

#include <stdexcept>

#include "core/closest_point.h"

namespace capsweep {

Triangle TriangleBlock::get(int i) const {
  return Triangle{{Vec3(float(x0[i]), float(y0[i]), float(z0[i])), Vec3(float(x1[i]), float(y1[i]), float(z1[i])),
                   Vec3(float(x2[i]), float(y2[i]), float(z2[i]))}};
}

TriangleBlock make_block(std::span<const Triangle> soup, std::span<const std::uint32_t> indices) {
  if (indices.empty() || indices.size() > std::size_t(kBlockLanes)) {
    throw std::invalid_argument("make_block: a block holds 1 to 8 triangles");
  }
  TriangleBlock block;
  for (int lane = 0; lane < kBlockLanes; ++lane) {
    const bool used = std::size_t(lane) < indices.size();
    const Triangle& t = soup[used ? indices[lane] : indices[0]];
    const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
    const TriangleShape shape = classify_triangle(v);
    const Vec3d n = shape.kind == TriangleShape::proper ? shape.normal : Vec3d{};
    block.x0[lane] = v[0].x, block.y0[lane] = v[0].y, block.z0[lane] = v[0].z;
    block.x1[lane] = v[1].x, block.y1[lane] = v[1].y, block.z1[lane] = v[1].z;
    block.x2[lane] = v[2].x, block.y2[lane] = v[2].y, block.z2[lane] = v[2].z;
    block.nx[lane] = n.x, block.ny[lane] = n.y, block.nz[lane] = n.z;
    block.triangle[lane] = used ? indices[lane] : kNoTriangle;
  }
  return block;
}

}  // namespace capsweep
