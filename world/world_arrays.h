// What a World answers from, and how to read it: a triangle, its links, its layers, the box of a
// lane the walk handed over. Internal: never included by a public header. (The queries only
// capsweep's own layers use are in sweeps.h, solver_queries.h and move_batch.h.)
#pragma once

#include <memory>
#include <span>
#include <vector>

#include <capsweep/world.h>

#include "broadphase/adjacency.h"
#include "broadphase/bvh.h"
#include "broadphase/near_leaves.h"
#include "broadphase/terrain.h"
#include "world/instances.h"

namespace capsweep {

// The arrays a world answers from, wherever they live: built in memory, or mapped from a
// snapshot file (io/snapshot.cpp). A World holds them with the owner that keeps them alive.
struct WorldArrays {
  // The mesh: triangles [0, mesh_count()), in the caller's order (hits name these indices). Its
  // one copy is the BVH's blocks: `lanes[i]` says where, block * kBlockLanes + lane, in as few
  // bits as the lanes need (issue 38: 1.4–2.5 bytes a triangle where a second copy took 36).
  PackedUintsView lanes;
  Aabb bounds;                          // of every triangle, the terrain's included
  BvhView bvh;                          // empty for a world of terrain alone
  LinksView links;  // of each mesh triangle
  // One mask per triangle, never 0; or none where every triangle of the mesh is on the same
  // layers, `mesh_layers` (most worlds: 4 bytes a triangle, and the BVH's child_layers, saved).
  std::span<const std::uint32_t> layers;
  std::uint32_t mesh_layers = kDefaultLayers;
  std::uint32_t layers_present = kDefaultLayers;  // the union of them all, the terrain's included
  // The heightfield, if any: triangles [mesh_count(), + terrain.triangle_count()).
  TerrainView terrain;
  // Its instances at this frame (world/instances.h), or none: triangles [instances->first, +
  // instances->triangles), after the terrain's. Owned with the arrays.
  const InstanceSet* instances = nullptr;
  // One agent's cached neighbourhood of the mesh's BVH (World::move with a MoveCache), or none:
  // a walk whose swept box it covers takes its tree instead of the world's (walk.h). Only an
  // agent's own copy of the arrays sets it.
  const NearLeaves* near = nullptr;

  std::size_t mesh_count() const { return lanes.size(); }
  // Mesh triangle i (< mesh_count()), from its block.
  Triangle mesh_triangle(std::size_t i) const {
    return bvh.blocks[lanes[i] / kBlockLanes].get(int(lanes[i] % kBlockLanes));
  }
};

// Where each mesh triangle lies in the blocks (WorldArrays::lanes), from the blocks alone.
PackedUints triangle_lanes(std::span<const TriangleBlock> blocks, std::size_t triangles);

// The mask a walk filters with: kAllLayers when `layers` hides nothing of this world (the walk
// then never looks at layers, and costs what it did before filters existed).
inline std::uint32_t walk_layers(const WorldArrays& w, std::uint32_t layers) {
  return (layers & w.layers_present) == w.layers_present ? kAllLayers : layers;
}

// Whether triangle i is there for a walk with mask `layers` (from walk_layers).
inline bool seen(const WorldArrays& w, std::uint32_t i, std::uint32_t layers) {
  if (layers == kAllLayers) return true;
  if (i >= w.mesh_count()) {
    if (w.instances && i >= w.instances->first) return (w.instances->holding(i).layers & layers) != 0;
    return (w.terrain.layers & layers) != 0;
  }
  return ((w.layers.empty() ? w.mesh_layers : w.layers[i]) & layers) != 0;
}

// The mask a walk of the mesh's BVH filters with: kAllLayers where it sees every triangle of the
// mesh, 0 where it sees none (a mesh all on one mask keeps no per-node layers to filter by).
inline std::uint32_t mesh_walk_layers(const WorldArrays& w, std::uint32_t layers) {
  if (layers == kAllLayers || !w.layers.empty()) return layers;
  return (w.mesh_layers & layers) != 0 ? kAllLayers : 0u;
}

// Every triangle index of the world: the mesh's, then the terrain's (holes included), then the
// instances'.
inline std::uint64_t world_triangle_count(const WorldArrays& w) {
  return w.mesh_count() + w.terrain.triangle_count() + (w.instances ? w.instances->triangles : 0);
}

// Whether triangle i is the terrain's.
inline bool is_terrain_triangle(const WorldArrays& w, std::uint32_t i) {
  return i >= w.mesh_count() && i - w.mesh_count() < w.terrain.triangle_count();
}

// Triangle i, from the mesh, made from the terrain's samples, or an instance's placed (the same
// floats every time).
inline Triangle triangle_at(const WorldArrays& w, std::uint32_t i) {
  if (i < w.mesh_count()) return w.mesh_triangle(i);
  if (w.instances && i >= w.instances->first) return instance_triangle(*w.instances, i);
  return terrain_triangle(w.terrain, i - w.mesh_count());
}

// Its adjacency (the terrain's is computed from the grid, as link_triangles would find it; an
// instance's is its prototype's, within the instance).
inline TriangleLinks links_at(const WorldArrays& w, std::uint32_t i) {
  if (i < w.links.size()) return w.links.unpack(i);
  if (w.instances && i >= w.instances->first) return instance_links(*w.instances, i);
  return terrain_links(w.terrain, i - w.links.size());
}

// The box of lane `lane` of a block the walk handed over: the bounds of its vertices, read from
// the block itself (no box is stored per triangle: issue 38's 64 bytes a triangle; the block's
// lane is in cache already, where a stored box was a miss in another array).
inline Aabb lane_box(const TriangleBlock& block, int lane) { return bounds(block.get(lane)); }

}  // namespace capsweep
