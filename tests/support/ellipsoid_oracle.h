// The oracle for moving ellipsoids, by Fauerby's eSpace: dividing coordinates by the radii makes
// the ellipsoid a unit sphere, and the oracle's own segment-triangle distance and conservative
// advancement (oracle.h) find its contact there. Shares no code with core/.
#pragma once

#include <span>
#include <string>

#include <capsweep/world.h>
#include "tests/support/triangle_grid.h"

namespace oracle {

// Whether `hit` is exact for the ellipsoid moving by `motion` against the triangles (the first
// contact over all of them): its t lies between the contact times of the ellipsoid with every
// radius shrunk and grown by `tol`, and at t the reported triangle is touched, the normal is the
// ellipsoid's surface normal there, the point lies on the triangle, and a start in contact is
// pushed out of the shrunk ellipsoid by its depth. A miss is allowed only where the shrunk
// ellipsoid never touches. Empty string when accepted, else why not.
std::string judge_ellipsoid(const capsweep::SweepHit& hit, const capsweep::SweepEllipsoidQuery& query,
                            std::span<const capsweep::Triangle> triangles, double tol);

// The same over a scene, with the tolerance of its coordinates and candidates from the grid.
std::string judge_ellipsoid_scene(const capsweep::SweepHit& hit, const capsweep::SweepEllipsoidQuery& query,
                                  std::span<const capsweep::Triangle> triangles, const TriangleGrid& grid);

}  // namespace oracle
