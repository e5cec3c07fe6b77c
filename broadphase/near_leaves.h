// What one agent met last tick, kept (issue 38): the BVH's leaves near it under a tree of its own,
// so that its next sweeps skip the descent from the world's root. Verlet lists with a skin, from
// molecular dynamics, are the idea; Jolt's CharacterVirtual gathers its contacts in a padded box
// once per update for the same reason. Internal to broadphase/ and world/.
#pragma once

#include <cstdint>
#include <span>

#include <capsweep/values.h>

#include "broadphase/bvh.h"
#include "broadphase/swept_box.h"

namespace capsweep {

// Every triangle of a BVH whose box meets `region`, copied into blocks of its own (the same
// floats and indices, lane for lane) under one 8-wide root: a tree an agent walks instead of the
// world's. A walk of it meets every triangle the world's walk meets for a swept box inside the
// region (covers()), and each lane's arithmetic is the same whichever block holds it, so it
// finds the same answer: each query keeps the least contact by is_better_hit, whatever order
// the triangles come in.
class NearLeaves {
 public:
  static constexpr int kMaxBlocks = WideNode::kWidth;
  static constexpr int kMaxTriangles = kMaxBlocks * kBlockLanes;

  // Gathers the triangles of `bvh` meeting `region`; `layers`: each triangle's mask when the
  // tree filters by layers (its child_layers are not empty). False, holding nothing, when more
  // than kMaxTriangles do (the agent's walks then take the world's tree).
  bool gather(const BvhView& bvh, std::span<const std::uint32_t> layers, std::uint32_t mesh_layers, const Aabb& region);
  void clear() { blocks_ = 0, triangles_ = 0, region_ = Aabb{}; }

  // Whether a walk with this swept box stays inside the region, with a margin far above the
  // slab test's rounding (a triangle left out lies wholly outside the region, so at least that
  // far from anything the walk could enter).
  bool covers(const SweptBox& s) const {
    for (int k = 0; k < 3; ++k) {
      const float end = s.c[k] + s.d[k];
      const float lo = (s.c[k] < end ? s.c[k] : end) - s.h[k];
      const float hi = (s.c[k] < end ? end : s.c[k]) + s.h[k];
      // 1 mm, and 20 float steps of the coordinates (4 cm at 20 km): the slab test's rounding is
      // a few steps; make_swept_box's padding is inside s.h already.
      const float slack = 1e-3f + 1e-6f * ((lo < 0 ? -lo : lo) + (hi < 0 ? -hi : hi));
      if (!(region_.min[k] <= lo - slack && hi + slack <= region_.max[k])) return false;
    }
    return true;
  }

  // The tree to walk: its root and its blocks.
  BvhView view() const {
    return {std::span(&root_, 1), std::span(blocks_data_, blocks_),
            has_layers_ ? std::span<const std::uint32_t>(child_layers_) : std::span<const std::uint32_t>{}, 1};
  }

  int triangles() const { return int(triangles_); }
  const Aabb& region() const { return region_; }

 private:
  Aabb region_;  // empty: nothing gathered
  std::uint32_t blocks_ = 0, triangles_ = 0;
  bool has_layers_ = false;
  WideNode root_;
  std::uint32_t child_layers_[WideNode::kWidth];
  TriangleBlock blocks_data_[kMaxBlocks];
};
static_assert(sizeof(NearLeaves) <= 3 * 1024, "an agent's neighbourhood stays under 3 KB");

}  // namespace capsweep
