// for_each_contact: the triangles near a standing capsule, with their discrete contact.
// Internal to broadphase/ (uses the BVH traversal); shared by is_clear, deepest_overlap and overlap.
#pragma once

#include "broadphase/walk.h"
#include "broadphase/world_arrays.h"
#include <capsweep/contact.h>

namespace capsweep {

// Calls visit(triangle, contact) for every triangle on `layers` whose box meets the capsule's box
// grown by `clearance`, with their discrete contact; visit returns true to stop.
template <class Visit>
void for_each_contact(const WorldArrays& w, const Capsule& capsule, float clearance, Visit&& visit,
                      std::uint32_t layers = kAllLayers) {
  layers = walk_layers(w, layers);
  const Aabb box = swept_bounds({capsule.a, capsule.b, capsule.radius + clearance}, {});
  float limit = 1.f;
  TraversalStats stats;
  walk_world(w, make_swept_box(capsule, {}, clearance), limit, stats, [&](const TriangleBlock& block) {
    for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
      const std::uint32_t i = block.triangle[lane];
      if (!box.overlaps(lane_box(w, block, lane)) || !seen(w, i, layers)) continue;
      Contact k;
      capsule_triangle_contact(capsule, block.get(lane), k);
      if (visit(i, k)) return true;
    }
    return false;
  }, layers);
}

// Keeps the deepest overlap among the contacts offered: the smallest distance below the radius
// (for crossing axes the largest push-out); at equal depth the lower index, whatever the order
// of the walk.
struct DeepestOverlap {
  bool found = false;
  Contact contact;
  std::uint32_t triangle = kNoTriangle;

  void offer(std::uint32_t i, const Contact& k, float radius) {
    if (k.distance < radius && (!found || k.depth > contact.depth || (k.depth == contact.depth && i < triangle))) {
      contact = k;
      triangle = i;
      found = true;
    }
  }
};

}  // namespace capsweep
