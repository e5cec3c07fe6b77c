// The walk of a body standing still: the triangles near it, with their discrete contact.
// Internal to world/; shared by is_clear, deepest_overlap and overlap, and by the ellipsoids'
// overlaps (world_ellipsoid.cpp), which walk with the capsule holding the ellipsoid.
#pragma once

#include <bit>
#include <cmath>

#include "world/walk.h"
#include "world/world_arrays.h"
#include "simd/block_sweep.h"
#include <capsweep/sweep.h>

namespace capsweep {

// The float rejection stage of the sweeps (simd/block_sweep.h) for a standing capsule: a query
// that does not move, of radius a hair over `reach`. The stage rejects only a triangle whose
// exact distance from the axis exceeds its radius (the box test is exact, the plane and edge
// tests keep a margin), and a contact's distance is that exact distance rounded to float; so
// with the radius 1e-6 over, a rejected triangle's contact is farther than `reach` even after
// rounding. (At `reach` itself, a distance within half a float step above it rounds down onto it
// and counts as touching: the box test of `reach` alone would drop such a triangle.)
inline BlockQuery standing_query(const Capsule& capsule, float reach) {
  return make_block_query({capsule.a, capsule.b, std::nextafter(reach * (1.f + 1e-6f), INFINITY)}, {});
}

// The walk of a body standing still, for a capsule holding it: calls visit(block, lane) for every
// lane the float stage keeps within `radius + clearance` of the capsule's axis (standing_query),
// and visit returns true to stop. `layers`: the walk's mask (walk_layers); the lanes are not
// filtered by it, visit does that (after its own cheaper tests).
template <class Visit>
void for_each_lane_near(const WorldArrays& w, const Capsule& capsule, float clearance, std::uint32_t layers,
                        Visit&& visit) {
  static const BlockSweepVariant& kernel = best_block_sweep();
  // Made at the first leaf: most walks of a standing person on open ground reach none.
  BlockQuery query;
  bool have_query = false;
  float limit = 1.f;
  TraversalStats stats;
  walk_world(w, make_swept_box(capsule, {}, clearance), limit, stats, [&](const TriangleBlock& block) {
    if (!have_query) {
      query = standing_query(capsule, capsule.radius + clearance);
      have_query = true;
    }
    for (std::uint32_t live = kernel.live(block, query); live != 0; live &= live - 1) {
      if (visit(block, std::countr_zero(live))) return true;
    }
    return false;
  }, layers);
}

// Calls visit(triangle, contact) for every triangle on `layers` within `radius + clearance` of
// the capsule's axis, and for some farther ones, with their discrete contact; visit returns true
// to stop. Every caller judges a contact only against that reach (`distance <= radius +
// clearance`, or `< radius`), so the farther ones change no answer. They used to be all the
// triangles whose box met the capsule's: a person standing in a dungeon met a few dozen, nearly
// all of them the floor a skin below and walls beside, each an exact contact (about 600
// instructions); the stage drops them eight at a time.
template <class Visit>
void for_each_contact(const WorldArrays& w, const Capsule& capsule, float clearance, Visit&& visit,
                      std::uint32_t layers = kAllLayers) {
  layers = walk_layers(w, layers);
  for_each_lane_near(w, capsule, clearance, layers, [&](const TriangleBlock& block, int lane) {
    const std::uint32_t i = block.triangle[lane];
    if (!seen(w, i, layers)) return false;
    Contact k;
    capsule_triangle_contact(capsule, block.get(lane), k);
    return bool(visit(i, k));
  });
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
