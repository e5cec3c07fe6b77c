// The movement solver's questions to a World beyond a sweep: the deepest overlap, whether an
// ellipsoid is clear, the face normal on a seam, whether a contact is ground to stand on.
// Defined in world_collider.cpp and world_ellipsoid.cpp. Internal: never included by a public
// header.
#pragma once

#include <cstdint>
#include <functional>

#include <capsweep/sweep.h>
#include <capsweep/world.h>

#include "core/ellipsoid_contact.h"
#include "world/world_arrays.h"

namespace capsweep {

// World::deepest_overlap for a capsule that passed check_capsule (the solver's bodies are checked
// once per tick), without checking it again.
// (World::arrays(), or an agent's copy of them: WorldArrays::near.)
bool deepest_overlap_unchecked(const WorldArrays& w, const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                               std::uint32_t layers = kAllLayers);

// The ellipsoid's deepest overlap with the world (eSpace distance < 1): the largest push-out,
// then the lower triangle index (core/ellipsoid_contact.h). False when it overlaps nothing.
bool deepest_ellipsoid_overlap(const World& world, const Ellipsoid& ellipsoid, EllipsoidContact& contact,
                               std::uint32_t& triangle, std::uint32_t layers = kAllLayers);
bool deepest_ellipsoid_overlap(const WorldArrays& w, const Ellipsoid& ellipsoid, EllipsoidContact& contact,
                               std::uint32_t& triangle, std::uint32_t layers = kAllLayers);

// Whether the ellipsoid touches no triangle: its eSpace distance to each is more than 1. (A
// clearance around it is an ellipsoid scaled out by it: core/body.h.)
bool ellipsoid_clear(const World& world, const Ellipsoid& ellipsoid, std::uint32_t layers = kAllLayers);

// Calls visit(triangle, contact) for every triangle the ellipsoid touches (eSpace distance at
// most 1), in no set order.
void for_each_ellipsoid_touch(const World& world, const Ellipsoid& ellipsoid,
                              const std::function<void(std::uint32_t, const EllipsoidContact&)>& visit,
                              std::uint32_t layers = kAllLayers);

// Replaces the normal of a contact on a seam (an edge or vertex inside a flat surface) by the
// face normal, when that keeps the tolerance for a capsule of this radius. `layers` is the
// walk's mask (walk_layers): a seam whose neighbours are not all on it is an open edge.
void seam_normal(const World& world, SweepHit& hit, float radius, std::uint32_t layers = kAllLayers);
void seam_normal(const WorldArrays& w, SweepHit& hit, float radius, std::uint32_t layers = kAllLayers);

// Whether a contact is ground to stand on: its normal is at least `min_up` upward, or, on an
// edge or vertex, one of the faces meeting there is (the top of a step touched on its rim).
bool walkable(const World& world, const SweepHit& hit, float min_up, Vec3& ground_normal,
              std::uint32_t layers = kAllLayers);

}  // namespace capsweep
