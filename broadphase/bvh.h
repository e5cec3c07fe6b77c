// An 8-wide bounding volume hierarchy over triangle blocks, built with binned SAH.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <capsweep/values.h>
#include "simd/triangle_block.h"
#include "simd/wide_node.h"

namespace capsweep {

// Deepest tree the traversal's fixed stack holds (kWidth - 1 entries per level); snapshots are
// checked against it. The builder cannot pass it: every wide level splits each child's range at
// least once, ranges split by SAH only above 40 binary splits and at the median below, and a
// median split halves a range of fewer than 2^32 triangles, so an inner node has at most 40 + 28
// splits above it and the tree at most 69 levels. (Real scenes stay near 10.)
inline constexpr int kMaxBvhDepth = 72;

// The tree as the traversal reads it, wherever its arrays live (built, or mapped from a snapshot).
struct BvhView {
  std::span<const WideNode> nodes;
  std::span<const TriangleBlock> blocks;
  // Per node, the union of the layers below each of its eight children (0 for an unused slot):
  // a walk that sees none of them skips the child's whole subtree. Empty for a tree built
  // without layers (every triangle on the same ones): such a walk is asked with kAllLayers.
  std::span<const std::uint32_t> child_layers;
  int depth = 0;

  std::size_t memory_bytes() const {
    return nodes.size() * sizeof(WideNode) + blocks.size() * sizeof(TriangleBlock) + child_layers.size_bytes();
  }
};

struct Bvh {
  std::vector<WideNode> nodes;        // nodes[0] is the root (always an inner node)
  std::vector<TriangleBlock> blocks;  // the leaves: up to 8 triangles each
  std::vector<std::uint32_t> child_layers;  // kWidth per node (BvhView::child_layers)
  int depth = 0;                      // wide levels, root = 1

  BvhView view() const { return {nodes, blocks, child_layers, depth}; }
  std::size_t memory_bytes() const { return view().memory_bytes(); }
};

// What a traversal touched (for benchmarks and tuning).
struct TraversalStats {
  std::uint64_t nodes = 0;      // wide nodes whose eight children were tested
  std::uint64_t leaves = 0;     // blocks handed to the leaf function
  std::uint64_t triangles = 0;  // used lanes in those blocks (counted only when asked: a loop per leaf)
  bool count_triangles = false;
};

// Builds over the whole soup (which must not be empty). Subtrees of large meshes are built in
// parallel (oneTBB); the result does not depend on the thread count. With `layers` (one mask per
// triangle) the tree keeps the unions of the layers below each child; without, none.
Bvh build_bvh(std::span<const Triangle> soup, std::span<const std::uint32_t> layers = {});

// The same tree over a soup whose triangles moved (the same count, the same indices): each block
// lane takes its triangle anew and every box is made again from below (one backward pass), so
// it bounds exactly what it holds; only the tree's shape is kept. Returns its box_overhead().
double refit_bvh(Bvh& bvh, std::span<const Triangle> soup);

// How much a walk pays for the tree's shape, in the spirit of the surface area heuristic
// (MacDonald and Booth, "Heuristics for ray tracing using space subdivision", 1990): the area of
// every child box of every node over the area of the triangles' own boxes. Refitting after a
// move grows it where neighbours in the tree drifted apart, not where the triangles themselves
// grew (a prop turned about y), so its growth since the build says when to build again.
double box_overhead(const BvhView& bvh);

// The union of the layers below each child of each node (BvhView::child_layers), from the
// triangles' layers: what the builder stores and what a snapshot's is checked against.
std::vector<std::uint32_t> child_layer_unions(std::span<const WideNode> nodes, std::span<const TriangleBlock> blocks,
                                              std::span<const std::uint32_t> layers);

}  // namespace capsweep
