// The discrete contact of an axis-aligned ellipsoid with a triangle, in its eSpace (Fauerby):
// divided by the radii, the ellipsoid is the unit sphere at the origin and the contact is the
// sphere's, by the capsule contact of core/contact.cpp with a = b and r = 1. Mapped back:
//   - the normal is the eSpace normal n' through the inverse transpose (n' / radii, normalised):
//     the normal of the plane that separates the two, in world space;
//   - the depth is the push along that normal that moves the sphere out by its eSpace depth:
//     a world push p moves the sphere by p / radii, whose part along n' is |p| |n' / radii| for p
//     along the world normal, so depth = depth' / |n' / radii|. Pushed so, the ellipsoid touches
//     the separating plane and the triangle lies beyond it; of all pushes that clear that plane
//     it is the shortest.
// Used by the movement solver (depenetration, validation's start check). Internal.
#pragma once

#include <capsweep/values.h>

namespace capsweep {

struct EllipsoidContact {
  double distance = 0;       // eSpace: the centre's distance to the triangle, radii as unit (1: touching)
  bool overlapping = false;  // distance < 1
  float depth = 0.f;         // when overlapping: the push along `normal` that clears it, metres
  Vec3 normal;               // unit, world space, from the triangle toward the ellipsoid
  Vec3 point;                // the closest point on the triangle, world space
  Feature feature = Feature::none;
};

// For inputs that passed check_ellipsoid_sweep and check_triangle.
void ellipsoid_triangle_contact(const Ellipsoid& ellipsoid, const Triangle& triangle, EllipsoidContact& out);

}  // namespace capsweep
