// Terrain as a grid of heights: 2 or 4 bytes a sample instead of 100+ a triangle, answered by a
// walk over a min/max height pyramid instead of the BVH. A World may hold one heightfield and
// meshes together (terrain plus buildings) and answers every query kind against both as one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <capsweep/shapes.h>

namespace capsweep {

// A grid of `columns` x `rows` height samples. Sample (row, column) stands at
//   x = origin.x + column * cell_x,  z = origin.z + row * cell_z,  y = origin.y + height,
// each coordinate computed in double and rounded once to float (heightfield_vertex), so the
// same heightfield always gives the same triangles. Rows run along +z, columns along +x.
//
// Cell (row, column), between samples (row, column) and (row + 1, column + 1), holds two
// triangles split along the diagonal from (row, column + 1) to (row + 1, column), both facing +y:
//   half 0: (row, column), (row + 1, column), (row, column + 1)
//   half 1: (row, column + 1), (row + 1, column), (row + 1, column + 1)
// In a World they are triangles  mesh_triangles + 2 * (row * (columns - 1) + column) + half:
// after the world's mesh triangles, cell by cell, row by row (heightfield_triangle).
struct Heightfield {
  std::uint32_t columns = 0;  // samples along +x, >= 2
  std::uint32_t rows = 0;     // samples along +z, >= 2
  float cell_x = 1.f;         // metres between samples along x, > 0
  float cell_z = 1.f;         // and along z
  Vec3 origin;                // where sample (0, 0) stands at height 0

  // The heights, row by row (columns * rows of them), in exactly one of two forms:
  std::vector<float> heights;          // metres, or
  std::vector<std::uint16_t> samples;  // 16-bit samples (a PNG's): height = height_scale * sample
  float height_scale = 1.f;            // metres per sample step, for `samples`

  // Cells with no ground (caves, tunnels under terrain, a hole a building fills), one byte per
  // cell row by row ((columns - 1) * (rows - 1)), non-zero = hole; empty = none. A hole's two
  // triangles keep their indices but are never hit.
  std::vector<std::uint8_t> holes;

  // The layers the terrain's triangles are on (never 0; see SweepOptions::layers).
  std::uint32_t layers = kDefaultLayers;
};

// Why the heightfield cannot be built into a world ("" when it can): the first problem found,
// naming the sample or cell, e.g. "heightfield: sample (row 3, column 7) is not finite".
// Refused: fewer than 2 samples along an axis, heights that are not columns * rows (or both or
// neither form given), a cell size or height scale that is not finite and > 0, a coordinate
// larger in magnitude than 1e6 m, cells too small for float to tell neighbouring samples
// apart, holes that are not one per cell, a layer mask of 0.
std::string check_heightfield(const Heightfield& terrain);

// The height of sample (row, column) in metres above origin.y, as the world uses it.
double heightfield_height(const Heightfield& terrain, std::uint32_t row, std::uint32_t column);

// Where sample (row, column) stands (see Heightfield).
Vec3 heightfield_vertex(const Heightfield& terrain, std::uint32_t row, std::uint32_t column);

// Cells and triangles.
inline std::uint64_t heightfield_cells(const Heightfield& terrain) {
  return terrain.columns < 2 || terrain.rows < 2 ? 0 : std::uint64_t(terrain.columns - 1) * (terrain.rows - 1);
}
// Triangle `half` (0 or 1) of cell (row, column), as a World holds it.
Triangle heightfield_triangle(const Heightfield& terrain, std::uint32_t row, std::uint32_t column, int half);

// The same terrain as a triangle soup: the two triangles of every cell that is not a hole, in
// the world's order, and in `index` (when given) each one's place among the heightfield's
// triangles (2 * (row * (columns - 1) + column) + half). For comparing a heightfield world with
// the mesh world of the same terrain, or exporting it.
std::vector<Triangle> heightfield_mesh(const Heightfield& terrain, std::vector<std::uint32_t>* index = nullptr);

}  // namespace capsweep
