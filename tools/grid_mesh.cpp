#include "tools/grid_mesh.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace capsweep {

GridMesh heightfield_of_grid_mesh(const std::vector<Triangle>& mesh) {
  GridMesh out;
  const std::size_t cells = mesh.size() / 2;
  const auto side = std::uint32_t(std::lround(std::sqrt(double(cells))));
  if (mesh.empty() || mesh.size() % 2 != 0 || std::size_t(side) * side != cells) {
    throw std::runtime_error("not a square grid of cells: " + std::to_string(mesh.size()) + " triangles");
  }
  Heightfield& t = out.terrain;
  t.columns = t.rows = side + 1;
  const Triangle& first = mesh[0];  // half 0 of cell (0, 0): samples (0, 0), (1, 0), (0, 1)
  t.origin = {first.v[0].x, 0.f, first.v[0].z};
  t.cell_x = first.v[2].x - first.v[0].x;
  t.cell_z = first.v[1].z - first.v[0].z;
  t.heights.assign(std::size_t(t.columns) * t.rows, NAN);
  static constexpr int kCorner[2][3][2] = {{{0, 0}, {1, 0}, {0, 1}}, {{0, 1}, {1, 0}, {1, 1}}};
  out.index.resize(mesh.size());
  for (std::size_t k = 0; k < mesh.size(); ++k) {
    const std::size_t half = k / cells, cell = k % cells;
    const std::uint32_t r = std::uint32_t(cell / side), c = std::uint32_t(cell % side);
    out.index[k] = std::uint32_t(2 * cell + half);
    for (int v = 0; v < 3; ++v) {
      t.heights[std::size_t(r + kCorner[half][v][0]) * t.columns + (c + kCorner[half][v][1])] = mesh[k].v[v].y;
    }
  }
  // The mesh must be exactly this heightfield, vertex for vertex.
  if (std::string why = check_heightfield(t); !why.empty()) throw std::runtime_error(why);
  for (std::size_t k = 0; k < mesh.size(); ++k) {
    const std::uint32_t i = out.index[k];
    const Triangle h = heightfield_triangle(t, (i / 2) / side, (i / 2) % side, int(i % 2));
    for (int v = 0; v < 3; ++v) {
      if (!(h.v[v] == mesh[k].v[v])) throw std::runtime_error("triangle " + std::to_string(k) + " is not on the grid");
    }
  }
  return out;
}

}  // namespace capsweep
