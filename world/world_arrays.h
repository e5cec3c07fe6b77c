// What a World answers from, and how to read it: a triangle, its links, its layers, the box of a
// lane the walk handed over. Internal: never included by a public header. (The queries only
// capsweep's own layers use are in sweeps.h, solver_queries.h and move_batch.h.)
#pragma once

#include <memory>
#include <span>

#include <capsweep/world.h>

#include "broadphase/adjacency.h"
#include "broadphase/bvh.h"
#include "broadphase/terrain.h"

namespace capsweep {

// The arrays a world answers from, wherever they live: built in memory, or mapped from a
// snapshot file (io/snapshot.cpp). A World holds them with the owner that keeps them alive.
struct WorldArrays {
  // The mesh: triangles [0, triangles.size()), in the caller's order (hits name these indices).
  std::span<const Triangle> triangles;
  std::span<const Aabb> boxes;          // one box per triangle
  Aabb bounds;                          // of every triangle, the terrain's included
  BvhView bvh;                          // empty for a world of terrain alone
  std::span<const TriangleLinks> links;  // one per triangle
  std::span<const std::uint32_t> layers;  // one mask per triangle, never 0
  std::uint32_t layers_present = kDefaultLayers;  // the union of them all, the terrain's included
  // The heightfield, if any: triangles [triangles.size(), + terrain.triangle_count()).
  TerrainView terrain;
};

// The mask a walk filters with: kAllLayers when `layers` hides nothing of this world (the walk
// then never looks at layers, and costs what it did before filters existed).
inline std::uint32_t walk_layers(const WorldArrays& w, std::uint32_t layers) {
  return (layers & w.layers_present) == w.layers_present ? kAllLayers : layers;
}

// Whether triangle i is there for a walk with mask `layers` (from walk_layers).
inline bool seen(const WorldArrays& w, std::uint32_t i, std::uint32_t layers) {
  if (layers == kAllLayers) return true;
  return ((i < w.layers.size() ? w.layers[i] : w.terrain.layers) & layers) != 0;
}

// Every triangle index of the world: the mesh's, then the terrain's (holes included).
inline std::uint64_t world_triangle_count(const WorldArrays& w) {
  return w.triangles.size() + w.terrain.triangle_count();
}

// Triangle i, from the mesh or made from the terrain's samples (the same floats every time).
inline Triangle triangle_at(const WorldArrays& w, std::uint32_t i) {
  return i < w.triangles.size() ? w.triangles[i] : terrain_triangle(w.terrain, i - w.triangles.size());
}

// Its adjacency (the terrain's is computed from the grid, as link_triangles would find it).
inline TriangleLinks links_at(const WorldArrays& w, std::uint32_t i) {
  return i < w.links.size() ? w.links[i] : terrain_links(w.terrain, i - w.links.size());
}

// The box of lane `lane` of a block the walk handed over (a mesh triangle's stored box, or the
// bounds of a terrain triangle's vertices: the same numbers either way).
inline Aabb lane_box(const WorldArrays& w, const TriangleBlock& block, int lane) {
  const std::uint32_t i = block.triangle[lane];
  return i < w.boxes.size() ? w.boxes[i] : bounds(block.get(lane));
}

}  // namespace capsweep
