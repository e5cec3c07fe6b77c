#include "broadphase/bvh.h"

#include <algorithm>
#include <array>
#include <memory>

#include "parallel/executor.h"

#include "core/assert.h"

namespace capsweep {

namespace {

constexpr int kLeafSize = kBlockLanes;  // one leaf is one block
constexpr int kBins = 16;
// Past this many binary splits, split at the median: bounds the depth (and so the traversal
// stack) whatever the geometry.
constexpr int kMaxSahDepth = 40;
constexpr std::size_t kParallelGrain = 8192;

struct Prim {
  Aabb box;
  Vec3 centroid;
  std::uint32_t index;
};

struct Range {
  std::size_t first = 0, count = 0;
  Aabb box;
  int depth = 0;  // binary splits above it
};

float half_area(const Aabb& b) {
  if (b.empty()) return 0.f;
  const Vec3 s = b.max - b.min;
  return s.x * s.y + s.y * s.z + s.z * s.x;
}

// A side's share of the SAH cost counts the blocks its triangles fill, not the triangles: the
// kernels test a block of eight lanes at once, so a leaf of eight costs what a leaf of five
// does (Embree's SAH counts primitives in blocks the same way). Splits then fall at multiples
// of eight: fuller blocks, fewer of them.
float blocks(std::size_t n) { return float((n + kLeafSize - 1) / kLeafSize); }

Aabb box_of(std::span<const Prim> prims) {
  Aabb b;
  for (const Prim& p : prims) b.grow(p.box);
  return b;
}

// Splits a range in two, both non-empty: binned SAH over the centroids, else the median.
std::array<Range, 2> split(std::vector<Prim>& prims, const Range& range) {
  const auto first = prims.begin() + std::ptrdiff_t(range.first);
  const auto last = first + std::ptrdiff_t(range.count);
  Aabb centroids;
  for (auto it = first; it != last; ++it) centroids.grow(it->centroid);
  const Vec3 extent = centroids.max - centroids.min;
  int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
  std::ptrdiff_t mid = 0;

  if (range.depth < kMaxSahDepth && extent[axis] > 0) {
    float best_cost = INFINITY;
    int best_axis = -1, best_bin = 0;
    for (int a = 0; a < 3; ++a) {
      if (!(extent[a] > 0)) continue;
      std::array<Aabb, kBins> bin_box;
      std::array<std::size_t, kBins> bin_count{};
      const float scale = kBins / extent[a] * 0.99999f;
      for (auto it = first; it != last; ++it) {
        const int b = std::min(kBins - 1, int((it->centroid[a] - centroids.min[a]) * scale));
        bin_box[b].grow(it->box);
        ++bin_count[b];
      }
      // Sweep from the right, then from the left, costing every boundary.
      std::array<float, kBins> right_cost{};
      Aabb acc;
      std::size_t n = 0;
      for (int b = kBins - 1; b > 0; --b) {
        acc.grow(bin_box[b]);
        n += bin_count[b];
        right_cost[b] = half_area(acc) * blocks(n);
      }
      acc = Aabb{};
      n = 0;
      for (int b = 0; b < kBins - 1; ++b) {
        acc.grow(bin_box[b]);
        n += bin_count[b];
        if (n == 0 || n == range.count) continue;
        const float cost = half_area(acc) * blocks(n) + right_cost[b + 1];
        if (cost < best_cost) best_cost = cost, best_axis = a, best_bin = b;
      }
    }
    if (best_axis >= 0) {
      const int a = best_axis;
      const float scale = kBins / extent[a] * 0.99999f;
      auto boundary = std::partition(first, last, [&](const Prim& p) {
        return std::min(kBins - 1, int((p.centroid[a] - centroids.min[a]) * scale)) <= best_bin;
      });
      mid = boundary - first;
    }
  }
  if (mid == 0 || mid == std::ptrdiff_t(range.count)) {
    // No useful SAH split (coinciding centroids, or too deep): the median on the widest axis,
    // ties broken by triangle index so the result is deterministic.
    mid = std::ptrdiff_t(range.count / 2);
    std::nth_element(first, first + mid, last, [axis](const Prim& p, const Prim& q) {
      return p.centroid[axis] < q.centroid[axis] || (p.centroid[axis] == q.centroid[axis] && p.index < q.index);
    });
  }
  const std::span<const Prim> all(prims);
  Range left{range.first, std::size_t(mid), {}, range.depth + 1};
  Range right{range.first + std::size_t(mid), range.count - std::size_t(mid), {}, range.depth + 1};
  left.box = box_of(all.subspan(left.first, left.count));
  right.box = box_of(all.subspan(right.first, right.count));
  return {left, right};
}

// The tree as built, before it is laid out flat.
struct BuildNode {
  std::array<Range, WideNode::kWidth> child;
  int children = 0;
  std::array<std::unique_ptr<BuildNode>, WideNode::kWidth> inner;  // null for a leaf child
};

std::unique_ptr<BuildNode> build(std::vector<Prim>& prims, const Range& range) {
  auto node = std::make_unique<BuildNode>();
  node->child[0] = range;
  node->children = 1;
  // Open the largest child until there are kWidth, as a binary SAH tree collapsed to that width.
  while (node->children < WideNode::kWidth) {
    int pick = -1;
    float area = -1.f;
    for (int k = 0; k < node->children; ++k) {
      if (node->child[k].count > std::size_t(kLeafSize) && half_area(node->child[k].box) > area) {
        pick = k;
        area = half_area(node->child[k].box);
      }
    }
    if (pick < 0) break;
    const auto halves = split(prims, node->child[pick]);
    node->child[pick] = halves[0];
    node->child[node->children++] = halves[1];
  }
  parallel::TaskGroup tasks;
  for (int k = 0; k < node->children; ++k) {
    const Range& c = node->child[k];
    if (c.count <= std::size_t(kLeafSize)) continue;
    auto work = [&prims, &node, k] { node->inner[k] = build(prims, node->child[k]); };
    if (c.count >= kParallelGrain) {
      tasks.run(work);
    } else {
      work();
    }
  }
  tasks.wait();
  return node;
}

struct Flattener {
  std::span<const Triangle> soup;
  const std::vector<Prim>& prims;
  Bvh& bvh;

  std::uint32_t add(const BuildNode& b, int level) {
    bvh.depth = std::max(bvh.depth, level);
    const std::uint32_t index = std::uint32_t(bvh.nodes.size());
    bvh.nodes.emplace_back();
    WideNode node{};
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (k >= b.children) {
        node.child[k] = WideNode::kEmpty;
        continue;
      }
      const Range& c = b.child[k];
      node.min_x[k] = c.box.min.x, node.min_y[k] = c.box.min.y, node.min_z[k] = c.box.min.z;
      node.max_x[k] = c.box.max.x, node.max_y[k] = c.box.max.y, node.max_z[k] = c.box.max.z;
      if (b.inner[k]) {
        node.child[k] = add(*b.inner[k], level + 1);
      } else {
        std::array<std::uint32_t, kBlockLanes> ids;
        for (std::size_t i = 0; i < c.count; ++i) ids[i] = prims[c.first + i].index;
        std::sort(ids.begin(), ids.begin() + std::ptrdiff_t(c.count));
        node.child[k] = WideNode::kLeaf | std::uint32_t(bvh.blocks.size());
        bvh.blocks.push_back(make_block(soup, std::span(ids.data(), c.count)));
      }
    }
    bvh.nodes[index] = node;
    return index;
  }
};

}  // namespace

namespace {

double half_area(float dx, float dy, float dz) { return double(dx) * dy + double(dy) * dz + double(dz) * dx; }

}  // namespace

double box_overhead(const BvhView& bvh) {
  double nodes = 0, leaves = 0;
  for (const WideNode& n : bvh.nodes) {
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (n.used(k)) nodes += half_area(n.max_x[k] - n.min_x[k], n.max_y[k] - n.min_y[k], n.max_z[k] - n.min_z[k]);
    }
  }
  for (const TriangleBlock& block : bvh.blocks) {
    for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
      const Aabb b = bounds(block.get(lane));
      leaves += half_area(b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z);
    }
  }
  return leaves > 0 ? nodes / leaves : nodes;
}

double refit_bvh(Bvh& bvh, std::span<const Triangle> soup) {
  for (TriangleBlock& block : bvh.blocks) {
    int used = 0;
    for (; used < kBlockLanes && block.valid(used); ++used) {
      CAPSWEEP_ASSERT(block.triangle[used] < soup.size(), "a refit soup holds every triangle the tree names");
      set_block_lane(block, used, soup[block.triangle[used]], block.triangle[used]);
    }
    close_block(block, used);
  }
  // Children come after their parents (depth first): one backward pass sees each child's box
  // made before its parent's.
  for (std::size_t i = bvh.nodes.size(); i-- > 0;) {
    WideNode& n = bvh.nodes[i];
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (!n.used(k)) continue;
      Aabb box;
      if (n.child[k] & WideNode::kLeaf) {
        const TriangleBlock& block = bvh.blocks[n.child[k] & ~WideNode::kLeaf];
        for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) box.grow(bounds(block.get(lane)));
      } else {
        const WideNode& c = bvh.nodes[n.child[k]];
        for (int j = 0; j < WideNode::kWidth; ++j) {
          if (!c.used(j)) continue;
          box.grow(Vec3(c.min_x[j], c.min_y[j], c.min_z[j]));
          box.grow(Vec3(c.max_x[j], c.max_y[j], c.max_z[j]));
        }
      }
      n.min_x[k] = box.min.x, n.min_y[k] = box.min.y, n.min_z[k] = box.min.z;
      n.max_x[k] = box.max.x, n.max_y[k] = box.max.y, n.max_z[k] = box.max.z;
    }
  }
  CAPSWEEP_ASSERT(bvh.child_layers.empty(), "a refit tree keeps no layers (they would not move)");
  return box_overhead(bvh.view());
}

std::vector<std::uint32_t> child_layer_unions(std::span<const WideNode> nodes, std::span<const TriangleBlock> blocks,
                                              std::span<const std::uint32_t> layers) {
  std::vector<std::uint32_t> unions(nodes.size() * WideNode::kWidth, 0);
  // Children come after their parents (the builder lays the tree out depth first), so one
  // backward pass sees every child's unions before its parent's.
  for (std::size_t i = nodes.size(); i-- > 0;) {
    const WideNode& n = nodes[i];
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (!n.used(k)) continue;
      std::uint32_t u = 0;
      if (n.child[k] & WideNode::kLeaf) {
        const TriangleBlock& block = blocks[n.child[k] & ~WideNode::kLeaf];
        for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) u |= layers[block.triangle[lane]];
      } else {
        for (int j = 0; j < WideNode::kWidth; ++j) u |= unions[std::size_t(n.child[k]) * WideNode::kWidth + std::size_t(j)];
      }
      unions[i * WideNode::kWidth + std::size_t(k)] = u;
    }
  }
  return unions;
}

Bvh build_bvh(std::span<const Triangle> soup, std::span<const std::uint32_t> layers) {
  std::vector<Prim> prims(soup.size());
  for (std::size_t i = 0; i < soup.size(); ++i) {
    const Aabb b = bounds(soup[i]);
    prims[i] = {b, (b.min + b.max) * 0.5f, std::uint32_t(i)};
  }
  Range all{0, prims.size(), box_of(prims), 0};
  // The root is always an inner node, even over a single leaf.
  BuildNode root_only;
  std::unique_ptr<BuildNode> root = all.count > std::size_t(kLeafSize) ? build(prims, all) : nullptr;
  if (!root) {
    root_only.child[0] = all;
    root_only.children = 1;
  }
  Bvh bvh;
  bvh.nodes.reserve(prims.size() / 16 + 1);
  bvh.blocks.reserve(prims.size() / 4 + 1);
  Flattener{soup, prims, bvh}.add(root ? *root : root_only, 1);
  CAPSWEEP_ASSERT(bvh.depth <= kMaxBvhDepth, "the builder's depth bound (bvh.h) holds");
  if (!layers.empty()) bvh.child_layers = child_layer_unions(bvh.nodes, bvh.blocks, layers);
  return bvh;
}

}  // namespace capsweep
