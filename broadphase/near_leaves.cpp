#include "broadphase/near_leaves.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>

namespace capsweep {

namespace {

// The lanes' boxes of a block, eight at a time (branch-free loops the compiler vectorises), and
// the valid lanes whose box meets a region, a bit each.
struct LaneBoxes {
  float lo[3][kBlockLanes], hi[3][kBlockLanes];

  unsigned meeting(const TriangleBlock& b, const Aabb& r) {
    const float* rows[3][3] = {{b.x0, b.x1, b.x2}, {b.y0, b.y1, b.y2}, {b.z0, b.z1, b.z2}};
    int inside[kBlockLanes];
    for (int lane = 0; lane < kBlockLanes; ++lane) inside[lane] = b.triangle[lane] != kNoTriangle;
    for (int a = 0; a < 3; ++a) {
      const float* v0 = rows[a][0];
      const float* v1 = rows[a][1];
      const float* v2 = rows[a][2];
      for (int lane = 0; lane < kBlockLanes; ++lane) {
        const float m01 = v0[lane] < v1[lane] ? v0[lane] : v1[lane];
        const float x01 = v0[lane] < v1[lane] ? v1[lane] : v0[lane];
        lo[a][lane] = m01 < v2[lane] ? m01 : v2[lane];
        hi[a][lane] = x01 < v2[lane] ? v2[lane] : x01;
        inside[lane] &= int(lo[a][lane] <= r.max[a]) & int(r.min[a] <= hi[a][lane]);
      }
    }
    unsigned meets = 0;
    for (int lane = 0; lane < kBlockLanes; ++lane) meets |= unsigned(inside[lane]) << lane;
    return meets;
  }
  Aabb box(int lane) const {
    return {{lo[0][lane], lo[1][lane], lo[2][lane]}, {hi[0][lane], hi[1][lane], hi[2][lane]}};
  }
};

}  // namespace

bool NearLeaves::gather(const BvhView& bvh, std::span<const std::uint32_t> layers, std::uint32_t mesh_layers,
                        const Aabb& region) {
  clear();
  has_layers_ = !bvh.child_layers.empty();
  std::fill(std::begin(child_layers_), std::end(child_layers_), 0u);
  for (int k = 0; k < WideNode::kWidth; ++k) {
    root_.min_x[k] = root_.min_y[k] = root_.min_z[k] = root_.max_x[k] = root_.max_y[k] = root_.max_z[k] = 0.f;
    root_.child[k] = WideNode::kEmpty;  // an unused slot's box is zero (wide_node.h)
  }
  std::uint32_t count = 0;
  Aabb box;  // of the block being filled
  // Closes the block being filled (lanes [0, used)) as the root's next leaf.
  const auto close = [&](int used) {
    TriangleBlock& b = blocks_data_[blocks_];
    close_block(b, used);
    const int k = int(blocks_);
    root_.min_x[k] = box.min.x, root_.min_y[k] = box.min.y, root_.min_z[k] = box.min.z;
    root_.max_x[k] = box.max.x, root_.max_y[k] = box.max.y, root_.max_z[k] = box.max.z;
    root_.child[k] = WideNode::kLeaf | std::uint32_t(k);
    ++blocks_;
    box = Aabb{};
  };
  if (!bvh.nodes.empty()) {
    // The nodes' boxes meeting the region, eight at a time: the walk's own slab test (child_entry.h)
    // of the region as a box that does not move, its half extents padded so that rounding only
    // lets more children through (the lanes are then told exactly).
    SweptBox still;
    for (int a = 0; a < 3; ++a) {
      const float c = 0.5f * (region.min[a] + region.max[a]);
      const float h = 0.5f * (region.max[a] - region.min[a]);
      still.c[a] = c;
      still.h[a] = h * (1.f + 1e-5f) + 1e-5f * (1.f + std::fabs(c));
      still.d[a] = 0.f;
      still.inv_d[a] = 1e30f;
    }
    const ChildEntryPlanes planes = child_entry_planes(still);
    static const ChildEntryFn test = best_child_entry();
    alignas(32) float near[WideNode::kWidth];
    std::uint32_t stack[(WideNode::kWidth - 1) * kMaxBvhDepth + WideNode::kWidth];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const WideNode& n = bvh.nodes[stack[--top]];
      for (unsigned bits = test(planes, n, 1.f, near); bits != 0; bits &= bits - 1) {
        const int k = std::countr_zero(bits);
        if (!(n.child[k] & WideNode::kLeaf)) {
          stack[top++] = n.child[k];
          continue;
        }
        const TriangleBlock& leaf = bvh.blocks[n.child[k] & ~WideNode::kLeaf];
        LaneBoxes boxes;
        for (unsigned meets = boxes.meeting(leaf, region); meets != 0; meets &= meets - 1) {
          const int lane = std::countr_zero(meets);
          const Triangle t = leaf.get(lane);
          const Aabb b = boxes.box(lane);
          if (count == std::uint32_t(kMaxTriangles)) {
            clear();
            return false;
          }
          const int at = int(count++ % kBlockLanes);
          const std::uint32_t i = leaf.triangle[lane];
          set_block_lane(blocks_data_[blocks_], at, t, i);
          box.grow(b);
          if (has_layers_) child_layers_[blocks_] |= layers.empty() ? mesh_layers : layers[i];
          if (at == kBlockLanes - 1) close(kBlockLanes);
        }
      }
    }
  }
  if (count % kBlockLanes != 0) close(int(count % kBlockLanes));
  triangles_ = count;
  region_ = region;
  return true;
}

}  // namespace capsweep
