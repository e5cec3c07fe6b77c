// The narrow phase of every sweep of the world, and the one place a path is chosen.
//
// A shape (CapsuleSweep in world.cpp: capsules and rays; EllipsoidSweep in world_ellipsoid.cpp)
// says how it is swept: reach() the box it sweeps, walk_box() what the walk prunes with,
// sweep(triangle, hit) its exact kernel, and sweep_simd(w, shape, ...) its wide path. Brute force
// and the scalar walk are written once here for every shape; each offers its contacts to one
// ClosestHit (closest_hit.h). Capsules' gathered lanes go through one stage, sweep_gathered, in
// the per-query walk and in the lane pool alike. Internal to world/.
#pragma once

#include <algorithm>

#include <capsweep/sweep.h>

#include "broadphase/terrain.h"
#include "core/assert.h"
#include "simd/block_sweep.h"
#include "world/closest_hit.h"
#include "world/walk.h"
#include "world/world_arrays.h"

namespace capsweep {

// The stage every capsule lane the rejection stage let through ends in. Lanes [0, used) of
// `block` hold gathered triangles, lane i for the query `lanes.query(i)` (as swept: a ray is its
// thin capsule), whose contacts `lanes.collector(i)` collects. Closes the block, completes its
// exact normals, runs the full kernel on all its lanes at once (`lanes.sweep`: one query's, or
// the pooled kernel), then offers each lane's hit: a lane whose query starts within reach gets
// the scalar core's (which gives the depth and push-out), a lane entered at t gets lane_hit's,
// unless its collector already holds a better time. False when the kernel found nothing.
template <class Lanes>
[[gnu::always_inline]] inline bool sweep_gathered(const WorldArrays& w, const BlockSweepVariant& kernel, KernelBlock& block, int used, Lanes& lanes) {
  close_lanes(block, used);
  kernel.complete(block);
  BlockHits out;
  if (!lanes.sweep(kernel, block, out)) return false;
  for (int lane = 0; lane < used; ++lane) {
    CAPSWEEP_ASSERT(block.triangle[lane] < world_triangle_count(w), "a used lane names a triangle");
    auto& collector = lanes.collector(lane);
    SweepHit h;
    if (out.near_start[lane]) {
      const SweepQuery& q = lanes.query(lane);
      sweep_capsule_triangle_unchecked(q.capsule, q.motion, triangle_at(w, block.triangle[lane]), h);
      h.triangle = block.triangle[lane];
    } else if (collector.may_beat(out.t[lane])) {
      h = lane_hit(block, lane, lanes.block_query(lane), out);
    } else {
      continue;
    }
    collector.offer(h);
  }
  return true;
}

// Every triangle whose box meets the shape's reach, mesh, heightfield, then instances: the oracle the walks
// are tested against. `layers`: the walk's mask (walk_layers).
template <class Shape, class Collector>
void sweep_brute(const WorldArrays& w, const Shape& shape, Collector& closest, std::uint32_t layers) {
  const Aabb reach = shape.reach();
  auto offer = [&](std::uint32_t i, const Triangle& t, const Aabb& box) {
    if (!reach.overlaps(box) || !seen(w, i, layers)) return;
    SweepHit h;
    shape.sweep(t, h);
    h.triangle = i;
    closest.offer(h);
  };
  // Every mesh triangle, block after block (the blocks are the mesh's one copy; the closest hit
  // does not depend on the order triangles are offered in). A lane's box is told one axis at a
  // time, from the block's rows, before the lane is read out as a triangle.
  const auto meets = [](const float* v0, const float* v1, const float* v2, int lane, float lo, float hi) {
    return std::min(v0[lane], std::min(v1[lane], v2[lane])) <= hi && lo <= std::max(v0[lane], std::max(v1[lane], v2[lane]));
  };
  const auto offer_block = [&](const TriangleBlock& b) {
    for (int lane = 0; lane < kBlockLanes && b.valid(lane); ++lane) {
      if (!meets(b.x0, b.x1, b.x2, lane, reach.min.x, reach.max.x) ||
          !meets(b.z0, b.z1, b.z2, lane, reach.min.z, reach.max.z) ||
          !meets(b.y0, b.y1, b.y2, lane, reach.min.y, reach.max.y)) {
        continue;
      }
      offer(b.triangle[lane], b.get(lane), lane_box(b, lane));
    }
  };
  for (const TriangleBlock& b : w.bvh.blocks) offer_block(b);
  for_each_terrain_triangle_near(w.terrain, reach, [&](std::uint32_t i, const Triangle& t) { offer(i, t, bounds(t)); });
  // Every instance's triangles, placed (no instance box is asked: the oracle trusts no tree).
  if (const InstanceSet* set = w.instances) {
    TriangleBlock placed_block;
    for (const PlacedInstance& instance : set->placed) {
      for (const TriangleBlock& b : set->prototype_bvhs[instance.prototype].blocks) {
        place_block(instance, b, placed_block);
        offer_block(placed_block);
      }
    }
  }
}

// The walk, each lane of each leaf whose box meets the reach swept by the exact kernel.
template <class Shape, class Collector>
void sweep_scalar(const WorldArrays& w, const Shape& shape, Collector& closest, TraversalStats& stats,
                  std::uint32_t layers) {
  const Aabb reach = shape.reach();
  float limit = 1.f;
  walk_world(w, shape.walk_box(), limit, stats, [&](const TriangleBlock& block) {
    for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
      const std::uint32_t i = block.triangle[lane];
      ++stats.triangles;
      if (!reach.overlaps(lane_box(block, lane)) || !seen(w, i, layers)) continue;
      SweepHit h;
      shape.sweep(block.get(lane), h);
      h.triangle = i;
      closest.offer(h);
    }
    if (closest.found()) limit = closest.early_out();
    return false;
  }, layers);
}

// One checked query of any shape through the path asked for: the only switch on SweepPath.
// `layers`: the walk's mask (walk_layers). `hit` starts empty and gets the closest kept hit.
template <class Shape, class Keep>
void sweep_on_path(const WorldArrays& w, const Shape& shape, SweepPath path, SweepHit& hit, const Keep& keep,
                   TraversalStats& stats, std::uint32_t layers) {
  ClosestHit<Keep> closest(hit, keep);
  switch (path) {
    case SweepPath::simd: sweep_simd(w, shape, closest, stats, layers); break;
    case SweepPath::scalar: sweep_scalar(w, shape, closest, stats, layers); break;
    case SweepPath::brute: sweep_brute(w, shape, closest, layers); break;
  }
}

}  // namespace capsweep
