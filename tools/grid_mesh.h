// A terrain mesh exported cell by cell from a regular grid (the 0 A.D. scene of scenes/: every
// cell's first half row by row, then every cell's second half, split as heightfield.h splits
// cells) read back as the heightfield it came from: for comparing a heightfield world with the
// mesh world of the same terrain in the tests and the benchmarks.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/values.h>

namespace capsweep {

struct GridMesh {
  Heightfield terrain;               // float heights: the mesh's own vertex heights
  std::vector<std::uint32_t> index;  // mesh triangle k is the heightfield's triangle index[k]
};

// Throws std::runtime_error when the mesh is not such a grid (a vertex off the grid, a count
// that is not 2 n^2).
GridMesh heightfield_of_grid_mesh(const std::vector<Triangle>& mesh);

}  // namespace capsweep
