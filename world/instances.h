// A world's instances at one frame: prototypes placed by rigid poses, under a top-level BVH of
// their boxes, walked as the heightfield is: each leaf of a prototype's BVH the walk reaches is
// handed over as a block of its triangles placed in world space (placed(), the same floats as
// the triangles baked into a static world), so every kernel, path and query kind runs on it
// unchanged and answers as it would on the baked world. Internal to world/.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <capsweep/instances.h>
#include <capsweep/tiles.h>
#include <capsweep/world.h>

#include "broadphase/adjacency.h"
#include "broadphase/bvh.h"
#include "broadphase/swept_box.h"
#include "broadphase/traverse.h"

namespace capsweep {

struct WorldArrays;

// A pose as the walk applies it: world = rotation * local + position, in double.
struct Placement {
  double r[3][3];  // row-major
  double t[3];
};
Placement placement_of(const Pose& pose);

// The one rounding of a placed vertex (placed() in the public header is this).
[[gnu::always_inline]] inline Vec3 place(const Placement& p, const Vec3& v) {
  const double x = v.x, y = v.y, z = v.z;
  return Vec3(float(p.r[0][0] * x + p.r[0][1] * y + p.r[0][2] * z + p.t[0]),
              float(p.r[1][0] * x + p.r[1][1] * y + p.r[1][2] * z + p.t[1]),
              float(p.r[2][0] * x + p.r[2][1] * y + p.r[2][2] * z + p.t[2]));
}
inline Triangle place(const Placement& p, const Triangle& t) {
  return Triangle{{place(p, t.v[0]), place(p, t.v[1]), place(p, t.v[2])}};
}

// One instance at this frame.
struct PlacedInstance {
  Placement placement;
  Aabb box;                  // holds every placed triangle (from the prototype's bounds, rounded out)
  std::uint32_t first = 0;   // the world's index of its first triangle
  std::uint32_t count = 0;   // its prototype's triangles
  std::uint32_t prototype = 0;
  std::uint32_t layers = kDefaultLayers;
};

// Everything a frame's instances are: shared prototypes, the instances as given and as placed,
// and the top-level tree (built by build_bvh over one degenerate triangle per instance, min,
// max, max, whose bounds are the instance's box: lane k of a top leaf names instance k).
struct InstanceSet {
  std::shared_ptr<const WorldArrays> static_part;  // what the frame stands on (the next frame too)
  std::shared_ptr<const std::vector<World>> prototypes;
  std::vector<const WorldArrays*> prototype_arrays;  // prototypes[k].arrays()
  std::vector<BvhView> prototype_bvhs;               // their BVHs (the walk's view of them)
  std::vector<Instance> given;                       // as the caller set them (poses of this frame)
  // The streamed tiles (World::streamed), by id: tile k is placed[given.size() + k], its mesh
  // prototype_arrays[prototypes->size() + k]. Their triangles follow the instances'.
  std::vector<Tile> tiles;
  std::vector<PlacedInstance> placed;                // instances, then tiles: triangles follow it
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_id;  // (id, instance index), by id
  // The instances this frame moved (World::posed), by index, with where they stood in the frame
  // before: a tick on this frame carries and pushes agents with them (moving_instances.h).
  struct Moved {
    std::uint32_t instance;
    Placement before;
  };
  std::vector<Moved> moved;
  Aabb moved_bounds;  // every moved instance's box before and after: what the moves can reach
  Bvh top;
  double top_cost = 0;        // box_overhead(top)
  double top_cost_built = 0;  // and as it was when the tree was last built, not refit
  std::uint32_t first = 0;       // the first instance triangle: after the static mesh and terrain
  std::uint64_t triangles = 0;   // every instance's
  std::uint32_t layers_present = 0;
  Aabb bounds;                   // of every instance box

  // The instance holding world triangle i (first <= i < first + triangles).
  const PlacedInstance& holding(std::uint32_t i) const;
  // The index of the instance named `id`, or kNoInstance.
  std::uint32_t index_of(std::uint32_t id) const;
  // The tile holding world triangle i, or nullptr (an instance's, or not one of the set's).
  const Tile* tile_holding(std::uint32_t i) const;
};

// World triangle i of an instance (set.first <= i < set.first + set.triangles), placed, and its
// links (its prototype's, named by world index).
Triangle instance_triangle(const InstanceSet& set, std::uint32_t i);
TriangleLinks instance_links(const InstanceSet& set, std::uint32_t i);

inline constexpr std::uint32_t kNoInstance = 0xFFFFFFFFu;

// Checks and places `instances` (ids unique, prototypes in range, poses, layers, range) over a
// static part of `first` triangles; throws WorldError naming the instance.
std::shared_ptr<InstanceSet> place_instances(std::shared_ptr<const std::vector<World>> prototypes,
                                             std::vector<Instance> instances, std::uint32_t first);

// The next frame of `previous`: the instances named in `poses` placed anew, the others as they
// were; throws WorldError naming the row it refuses. Its top tree is the previous one refit to
// the new boxes, built anew once refitting has made its box_overhead kRebuildCost times what it
// was when built.
std::shared_ptr<InstanceSet> repose(const InstanceSet& previous, std::span<const InstancePose> poses);
inline constexpr double kRebuildCost = 1.5;

// The next frame of `previous` with the tiles named in `removed` gone, then `added` in (tiles.cpp):
// instances as they stand (none moved: World::streamed), the top tree built anew; throws
// WorldError naming the tile it refuses, nothing applied.
std::shared_ptr<InstanceSet> restream(const InstanceSet& previous, std::span<const Tile> added,
                                      std::span<const std::uint32_t> removed);

// The shared steps of a frame: the box a placement gives a prototype's bounds (rounded outward),
// and the top tree over the placed boxes, refit from `previous`'s or built anew (nullptr).
Aabb placed_box(const Placement& p, const Aabb& local);
void make_top(InstanceSet& set, const InstanceSet* previous);

// The swept box in an instance's own frame, grown so that it enters every local box whose
// placed triangles the world's swept box may touch: by the rounding of the transform and of
// placed() (half a float step of the world coordinates, far below the pad).
SweptBox local_swept_box(const PlacedInstance& instance, const SweptBox& s);

// A block of a prototype's leaf, placed: the same lanes, world-space vertices, world indices.
void place_block(const PlacedInstance& instance, const TriangleBlock& local, TriangleBlock& out);

// Visits the placed leaves of every instance on `layers` whose box the swept box enters at a
// time <= limit, as traverse() visits a BVH's leaves (leaf(block) may lower `limit`, returns
// true to stop the walk, and then walk_instances returns true).
template <class Leaf>
bool walk_instances(const InstanceSet& set, const SweptBox& s, float& limit, TraversalStats& stats, Leaf&& leaf,
                    std::uint32_t layers) {
  if (set.placed.empty()) return false;
  const SweptBoxTest test(s);
  TriangleBlock placed_block;
  return traverse(set.top.view(), s, limit, stats, [&](const TriangleBlock& boxes) {
    // Each lane holds an instance's box as (min, max, max): rows x0.. are its minima, x1.. its maxima.
    alignas(16) float near[kBlockLanes];
    const unsigned entered = test.enter(boxes.x0, boxes.y0, boxes.z0, boxes.x1, boxes.y1, boxes.z1, limit, near) |
                             test.enter(boxes.x0 + 4, boxes.y0 + 4, boxes.z0 + 4, boxes.x1 + 4, boxes.y1 + 4,
                                        boxes.z1 + 4, limit, near + 4) << 4;
    for (int lane = 0; lane < kBlockLanes && boxes.valid(lane); ++lane) {
      if (!(entered >> lane & 1) || near[lane] > limit) continue;
      const PlacedInstance& instance = set.placed[boxes.triangle[lane]];
      if (layers != kAllLayers && (instance.layers & layers) == 0) continue;
      const SweptBox local = local_swept_box(instance, s);
      const bool stop = traverse(set.prototype_bvhs[instance.prototype], local, limit, stats,
                                 [&](const TriangleBlock& block) {
                                   place_block(instance, block, placed_block);
                                   return leaf(static_cast<const TriangleBlock&>(placed_block));
                                 });
      if (stop) return true;
    }
    return false;
  });
}

}  // namespace capsweep
