// The oracle over a whole triangle soup: the first contact over all triangles.
#pragma once

#include <span>
#include <string>
#include <vector>

#include <capsweep/world.h>
#include "tests/support/triangle_grid.h"

namespace oracle {

// Accepts a world's answer to a query when it lies between the scene-wide contact times of the
// capsule shrunk and grown by the tolerance, and the reported triangle is touched at t the way
// oracle::judge demands. Empty string when accepted.
// With a grid (built over the same triangles) the candidates come from it, else from a scan.
std::string judge_scene(const capsweep::SweepHit& hit, const capsweep::SweepQuery& query,
                        std::span<const capsweep::Triangle> triangles, const TriangleGrid* grid = nullptr);

}  // namespace oracle
