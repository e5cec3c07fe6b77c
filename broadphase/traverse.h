// Walking the BVH for one swept capsule: children nearest first, pruned by the best time found.
// Internal to broadphase/.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>

#include <capsweep/values.h>

#include "broadphase/bvh.h"
#include "simd/child_entry.h"
#include "broadphase/swept_box.h"
#include "core/assert.h"

namespace capsweep {

// A node or leaf waiting on a walk's stack, with the time the swept box enters it.
struct WalkItem {
  std::uint32_t link;
  float t;
};

// Pushes the children in `bits` (links[k], entry near[k]) so that the nearest is on top; equal
// times keep slot order.
[[gnu::always_inline]] inline void push_nearest_first(WalkItem* stack, int& top, unsigned bits, const std::uint32_t* links,
                                                      const float* near) {
  if ((bits & (bits - 1)) == 0) {  // one child: the common case deep in the tree
    const int k = std::countr_zero(bits);
    stack[top++] = {links[k], near[k]};
    return;
  }
  WalkItem hits[WideNode::kWidth];
  int count = 0;
  for (; bits != 0; bits &= bits - 1) {
    const int k = std::countr_zero(bits);
    // Insertion by entry time (stable: equal times keep slot order).
    int at = count++;
    while (at > 0 && hits[at - 1].t > near[k]) {
      hits[at] = hits[at - 1];
      --at;
    }
    hits[at] = {links[k], near[k]};
  }
  for (int k = count - 1; k >= 0; --k) stack[top++] = hits[k];  // nearest on top
}

// Visits the leaves whose box the swept box enters at a time <= limit, nearest first. `leaf`
// is called as leaf(block) and may lower `limit` (the best time found so far); it returns
// true to stop the walk (then traverse returns true). Subtrees with none of `layers` below them
// are skipped (kAllLayers: nothing is).
template <class Leaf>
bool traverse(const BvhView& bvh, const SweptBox& s, float& limit, TraversalStats& stats, Leaf&& leaf,
              std::uint32_t layers = kAllLayers) {
  if (bvh.nodes.empty()) return false;  // a world of terrain alone
  CAPSWEEP_ASSERT(layers == kAllLayers || !bvh.child_layers.empty(), "a tree without layers is walked with kAllLayers");
  // Depth is bounded by the builder (median splits past a fixed depth): a level pops one entry
  // and pushes at most kWidth.
  WalkItem stack[(WideNode::kWidth - 1) * kMaxBvhDepth + WideNode::kWidth];
  int top = 0;
  stack[top++] = {0, 0.f};
  // Kept here too: an inline guard check per walk, not a call into child_entry.cpp (16
  // instructions a sweep, 0.7 % of a walking step's, callgrind).
  static const ChildEntryFn test = best_child_entry();
  const ChildEntryPlanes planes = child_entry_planes(s);
  while (top > 0) {
    const WalkItem item = stack[--top];
    if (item.t > limit) continue;
    if (item.link & WideNode::kLeaf) {
      ++stats.leaves;
      const std::uint32_t b = item.link & ~WideNode::kLeaf;
      CAPSWEEP_ASSERT(b < bvh.blocks.size(), "a block link is in range");
      if (leaf(bvh.blocks[b])) return true;
      continue;
    }
    CAPSWEEP_ASSERT(item.link < bvh.nodes.size(), "a node link is in range");
    const WideNode& n = bvh.nodes[item.link];
    ++stats.nodes;
    alignas(32) float near[WideNode::kWidth];
    unsigned bits = test(planes, n, limit, near);
    if (layers != kAllLayers) {
      const std::uint32_t* below = &bvh.child_layers[std::size_t(item.link) * WideNode::kWidth];
      for (int k = 0; k < WideNode::kWidth; ++k) {
        if ((below[k] & layers) == 0) bits &= ~(1u << k);
      }
    }
    if (bits == 0) continue;
    CAPSWEEP_ASSERT(top + std::popcount(bits) <= int(std::size(stack)), "the traversal stack holds kWidth - 1 entries per level");
    push_nearest_first(stack, top, bits, n.child, near);
  }
  return false;
}

}  // namespace capsweep
