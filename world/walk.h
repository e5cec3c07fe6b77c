// One walk over everything a world holds: its heightfield (terrain_walk.h), its mesh's BVH
// (traverse.h) and its instances (instances.h), sharing the limit, so a hit on any prunes the
// others. The order changes no
// answer (each query keeps the least hit by is_better_hit, and neither walk skips what may
// tie its limit); an agent's kept neighbourhood (WorldArrays::near) stands in for the mesh's BVH
// when it covers the walk; the terrain goes first because walking agents mostly stand on it.
// Internal to broadphase/.
#pragma once

#include "broadphase/terrain_walk.h"
#include "broadphase/traverse.h"
#include "world/world_arrays.h"

namespace capsweep {

// leaf(const TriangleBlock&) as for traverse(); `layers` is a walk's mask (walk_layers).
template <class Leaf>
void walk_world(const WorldArrays& w, const SweptBox& s, float& limit, TraversalStats& stats, Leaf&& leaf,
                std::uint32_t layers) {
  if (w.terrain.present() && (layers == kAllLayers || (w.terrain.layers & layers) != 0)) {
    if (walk_terrain(w.terrain, s, limit, stats, leaf)) return;
  }
  if (const std::uint32_t mesh = mesh_walk_layers(w, layers); mesh != 0) {
    // An agent's kept neighbourhood holds every leaf such a walk can enter (near_leaves.h).
    if (w.near && w.near->covers(s) ? traverse(w.near->view(), s, limit, stats, leaf, mesh)
                                    : traverse(w.bvh, s, limit, stats, leaf, mesh)) {
      return;
    }
  }
  if (w.instances) walk_instances(*w.instances, s, limit, stats, leaf, layers);
}

}  // namespace capsweep
